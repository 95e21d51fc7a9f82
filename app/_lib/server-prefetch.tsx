/**
 * Server components only. A page's first data in its HTML: the signed-in layout and the pages run
 * their first tRPC queries on the server, with the request's session, and hand the answers to the
 * browser's QueryClient (`<HydrationBoundary>`), so the client components' useQuery calls find them
 * while the server renders them and while they hydrate — the content is on screen with the first
 * paint, not one round trip (or two: `account.me`, then the page's own read) after the scripts ran.
 *
 * The queries run in this process against the server's router (server/trpc/page-queries.ts: Next
 * never bundles server code, so the router is found on globalThis, not imported), with the same
 * context as an /api/trpc request. Keys are the client's (`trpc.x.queryOptions(input)` of the same
 * proxy type), and answers are passed as JSON, the way /api/trpc sends them (no transformer:
 * app/_lib/trpc.ts). A query that fails — signed out, forbidden, not found, any error — is simply not
 * handed over: the browser asks again, and the page behaves as it does without this (redirects to
 * sign-in, error notices, 404s). Nothing here throws into a page.
 */
import { dehydrate, hashKey, HydrationBoundary, QueryClient, type DehydratedState } from "@tanstack/react-query";
import { createTRPCOptionsProxy, type TRPCOptionsProxy } from "@trpc/tanstack-react-query";
import { headers } from "next/headers";
import { cache, type ReactNode } from "react";
import { PAGE_QUERIES_GLOBAL } from "@/server/shared/page-queries.ts";
import type { PageQueries } from "@/server/trpc/page-queries.ts";
import type { AppRouter } from "@/server/trpc/router.ts";
import { currentWorkspace } from "./current-workspace.ts";

export type ServerTrpc = TRPCOptionsProxy<AppRouter>;

/** What a page's loader gets: the query options proxy, and the reads whose answers go to the page. */
export interface PageLoad {
  trpc: ServerTrpc;
  /** Reads a query and returns its answer (for the reads that depend on it); throws when it fails. */
  fetch: QueryClient["fetchQuery"];
  /** The same for an infinite query (`trpc.x.infiniteQueryOptions(input, { getNextPageParam })`, as
   * the client's useInfiniteQuery asks): its first page, under the client's key and first cursor. */
  fetchInfinite: QueryClient["fetchInfiniteQuery"];
  /** The id of the workspace the app shows (`account.me`, read and handed over; app/_lib/current-workspace.ts). */
  workspaceId: () => Promise<string | null>;
}

type Loader = (load: PageLoad) => Promise<unknown>;

/** One per request (React's cache): the router proxy and a query client the layout and the page
 * share, so `account.me` is read once even though both need it. Null outside the Argus server. */
const requestQueries = cache(async () => {
  const handle = (globalThis as unknown as Record<symbol, PageQueries | undefined>)[Symbol.for(PAGE_QUERIES_GLOBAL)];
  if (!handle) return null;
  const context = handle.createContext(new Headers(await headers()));
  context.catch(() => undefined); // a failure shows in the queries that use it, never unhandled
  // Errors stay in the cache (not thrown, not retried): such a query is just not handed over.
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  const trpc = createTRPCOptionsProxy<AppRouter>({ router: handle.router, ctx: () => context, queryClient });
  return { trpc, queryClient };
});

const json = (data: unknown): unknown => (data === undefined ? data : JSON.parse(JSON.stringify(data)));

/** An answer as /api/trpc sends it. An infinite query's pages likewise, but its page params as they
 * are: the first is the client's `initialPageParam` (undefined: no cursor), which JSON would turn
 * into null — a cursor no input accepts, when the browser refetches that page. */
function toJson(data: unknown): unknown {
  if (data && typeof data === "object" && "pages" in data && "pageParams" in data) {
    const { pages, pageParams } = data as { pages: unknown; pageParams: unknown[] };
    if (Array.isArray(pages) && Array.isArray(pageParams)) return { pages: json(pages), pageParams };
  }
  return json(data);
}

/** The answers `load` read, as JSON like /api/trpc's; null when nothing could be read. */
export async function prefetchState(load: Loader): Promise<DehydratedState | null> {
  try {
    const queries = await requestQueries();
    if (!queries) return null;
    const { trpc, queryClient } = queries;
    const asked = new Set<string>();
    const reads: Promise<unknown>[] = [];
    const track = <T,>(queryKey: readonly unknown[], read: Promise<T>) => {
      asked.add(hashKey(queryKey));
      reads.push(read);
      return read;
    };
    const fetch = ((options: { queryKey: readonly unknown[] }) =>
      track(
        options.queryKey,
        queryClient.fetchQuery(options as Parameters<QueryClient["fetchQuery"]>[0]),
      )) as QueryClient["fetchQuery"];
    const fetchInfinite = ((options: { queryKey: readonly unknown[] }) =>
      track(
        options.queryKey,
        queryClient.fetchInfiniteQuery(options as Parameters<QueryClient["fetchInfiniteQuery"]>[0]),
      )) as QueryClient["fetchInfiniteQuery"];
    const workspaceId = async () => currentWorkspace(await fetch(trpc.account.me.queryOptions()))?.id ?? null;
    // A failed read ends the loader; the answers it had, and those still on their way, are handed over.
    await load({ trpc, fetch, fetchInfinite, workspaceId }).catch(() => undefined);
    await Promise.allSettled(reads);
    const state = dehydrate(queryClient, {
      shouldDehydrateQuery: (q) => q.state.status === "success" && asked.has(q.queryHash),
      serializeData: toJson,
    });
    return state.queries.length ? state : null;
  } catch {
    return null;
  }
}

/** Renders `children` with the answers `load` read handed to the browser's QueryClient. */
export async function Prefetch({ load, children }: { load: Loader; children: ReactNode }) {
  const state = await prefetchState(load);
  return state ? <HydrationBoundary state={state}>{children}</HydrationBoundary> : children;
}
