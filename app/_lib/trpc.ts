"use client";
import { createTRPCClient, httpLink } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import type { AppRouter } from "@/server/trpc/router.ts";

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

export function makeTrpcClient() {
  // Unbatched: each call gets its own HTTP status (401/403/404/409) and Set-Cookie headers.
  return createTRPCClient<AppRouter>({ links: [httpLink({ url: "/api/trpc" })] });
}

export interface InputIssue {
  /** Where in the input, e.g. ["chunking", "chunk_size"]. */
  path: string[];
  message: string;
}

/** The message and HTTP status of a tRPC error, for toasts and inline form errors: `fields` by
 * top-level field, `issues` with their full paths (nested inputs). */
export function errorInfo(err: unknown): {
  message: string;
  status?: number;
  fields?: Record<string, string[] | undefined>;
  issues?: InputIssue[];
} {
  const e = err as {
    message?: string;
    data?: { httpStatus?: number; fieldErrors?: Record<string, string[] | undefined>; issues?: InputIssue[] };
  };
  return {
    message: e?.message ?? "Something went wrong.",
    status: e?.data?.httpStatus,
    fields: e?.data?.fieldErrors,
    issues: e?.data?.issues,
  };
}
