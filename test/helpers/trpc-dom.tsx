/**
 * For component tests of the browser's code: the app's real tRPC hooks (useTRPC + TanStack Query)
 * over a link that answers from the test instead of HTTP, inside a signed-in workspace. A test gives
 * each procedure's answer (a value, a function of the input, or a `trpcError`) and reads `calls` to
 * see what the component sent.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, TRPCClientError, type TRPCLink } from "@trpc/client";
import { observable } from "@trpc/server/observable";
import { render } from "@testing-library/react";
import type { ReactNode } from "react";
import { TRPCProvider } from "@/app/_lib/trpc.ts";
import { WorkspaceContext, type Role, type WorkspaceState } from "@/app/_lib/workspace.tsx";
import type { AppRouter } from "@/server/trpc/router.ts";

const FAILED = Symbol("trpc error");

/** A procedure's failure as the server sends it: message, HTTP status, zod's errors by field. */
export function trpcError(message: string, data: { httpStatus?: number; fieldErrors?: Record<string, string[]> } = {}) {
  return { [FAILED]: true, message, data: { httpStatus: 400, ...data } } as const;
}

type Answer = unknown | ((input: unknown) => unknown);

export function renderWithTrpc(
  ui: ReactNode,
  answers: Record<string, Answer>,
  { role = "owner" as Role, workspaceId = "ws1" } = {},
) {
  const calls: { path: string; input: unknown }[] = [];
  const link: TRPCLink<AppRouter> =
    () =>
    ({ op }) =>
      observable((observer) => {
        calls.push({ path: op.path, input: op.input });
        if (!(op.path in answers)) {
          observer.error(TRPCClientError.from(new Error(`No answer for ${op.path} in this test`)));
          return;
        }
        const given = answers[op.path];
        const answer = typeof given === "function" ? (given as (input: unknown) => unknown)(op.input) : given;
        if (answer && typeof answer === "object" && FAILED in answer) {
          const { message, data } = answer as ReturnType<typeof trpcError>;
          observer.error(TRPCClientError.from({ error: { message, code: -32600, data } }));
          return;
        }
        observer.next({ result: { type: "data", data: answer } });
        observer.complete();
      });
  const client = createTRPCClient<AppRouter>({ links: [link] });
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  const workspace: WorkspaceState = {
    user: { id: "u1", name: "Ada", email: "ada@example.com" },
    workspace: { id: workspaceId, name: "Acme", role },
    workspaces: [{ id: workspaceId, name: "Acme", role }],
    selectWorkspace: () => {},
    canEdit: role !== "viewer",
    canCreateWorkspace: role !== "viewer",
  };
  const view = render(
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={client} queryClient={queryClient}>
        <WorkspaceContext.Provider value={workspace}>{ui}</WorkspaceContext.Provider>
      </TRPCProvider>
    </QueryClientProvider>,
  );
  return { ...view, calls, queryClient };
}
