/**
 * Which of the user's workspaces the app shows: the one the server keeps as current (`account.me`),
 * else the first. The signed-in layout (in the browser) and the pages' server loaders both use it.
 */
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/router.ts";

type Me = inferRouterOutputs<AppRouter>["account"]["me"];

export function currentWorkspace(me: Pick<Me, "workspaces" | "currentWorkspaceId">): Me["workspaces"][number] | null {
  return me.workspaces.find((w) => w.id === me.currentWorkspaceId) ?? me.workspaces[0] ?? null;
}
