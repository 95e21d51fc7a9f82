/**
 * The one way a tRPC context is built from a request: the services and the signed-in actor read from
 * the request's cookie. The HTTP handler (server/http/handler.ts) builds it for /api/trpc; the page
 * renderer (server/trpc/page-queries.ts) builds it for the queries a page's server components run.
 */
import { actorFromHeaders } from "../auth/auth.ts";
import type { Services } from "../context.ts";
import type { TrpcContext } from "./init.ts";

export async function createTrpcContext(
  services: Services,
  headers: Headers,
  options: {
    appendResponseHeader?: TrpcContext["appendResponseHeader"];
    /** false: read the session without extending it (a page render cannot send the new cookie). */
    refresh?: boolean;
  } = {},
): Promise<TrpcContext> {
  return {
    services,
    actor: await actorFromHeaders(services.auth, headers, { refresh: options.refresh }),
    appendResponseHeader: options.appendResponseHeader ?? (() => {}),
  };
}
