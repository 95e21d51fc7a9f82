/**
 * Where the page renderer finds the server's tRPC router: a handle on globalThis under this name,
 * set by server/trpc/page-queries.ts and read by app/_lib/server-prefetch.ts. Next compiles app/ on
 * its own and never bundles server code, so the two meet in the one process, not through an import.
 */
export const PAGE_QUERIES_GLOBAL = "argus.trpc.pageQueries";
