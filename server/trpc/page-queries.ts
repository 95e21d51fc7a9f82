/**
 * The tRPC router and request context for a page's server components, so a page's first data is in
 * its HTML (app/_lib/server-prefetch.ts runs the queries; the browser's useQuery finds the answers).
 * Next compiles app/ on its own and never bundles server code (docs/architecture.md), so the page
 * renderer cannot import this: server/main.ts registers it on globalThis before Next starts, the way
 * the services are handed out (server/context.ts).
 */
import type { Services } from "../context.ts";
import { PAGE_QUERIES_GLOBAL } from "../shared/page-queries.ts";
import { createTrpcContext } from "./context.ts";
import type { TrpcContext } from "./init.ts";
import { appRouter, type AppRouter } from "./router.ts";

export interface PageQueries {
  router: AppRouter;
  /** The context of a page request from its headers (the session cookie). The session is read, not
   * extended: a page render cannot send better-auth's new cookie (the browser's next API call does). */
  createContext(headers: Headers): Promise<TrpcContext>;
}

export function registerPageQueries(services: Services): void {
  const handle: PageQueries = {
    router: appRouter,
    createContext: (headers) => createTrpcContext(services, headers, { refresh: false }),
  };
  (globalThis as unknown as Record<symbol, PageQueries>)[Symbol.for(PAGE_QUERIES_GLOBAL)] = handle;
}
