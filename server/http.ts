/**
 * The HTTP routes Argus serves itself, in front of Next.js: /api/health, /api/auth/* (better-auth),
 * /api/trpc/* (tRPC). Everything else goes to Next (or 404 when the server runs without the UI).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import { toNodeHandler } from "better-auth/node";
import { actorFromHeaders, toHeaders } from "./auth/auth.ts";
import type { Services } from "./context.ts";
import { checkHealth } from "./health.ts";
import { appRouter } from "./trpc/router.ts";
import { handleUpload, UPLOAD_ROUTE } from "./snapshots/upload.ts";
import { EXPORT_ROUTE, handleExport } from "./review/export/route.ts";
import { routeKnowledgeUpload } from "./knowledge/upload.ts";

const MAX_BODY_BYTES = 2 * 1024 * 1024;

type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
  res.end(JSON.stringify(body));
}

export function createRequestHandler(services: Services, next?: Handler): Handler {
  const auth = toNodeHandler(services.auth);
  const trpc = createHTTPHandler({
    router: appRouter,
    basePath: "/api/trpc/",
    // No API input is anywhere near this; a bigger body is refused before it is buffered.
    maxBodySize: MAX_BODY_BYTES,
    createContext: async ({ req, res }) => ({
      services,
      actor: await actorFromHeaders(services.auth, toHeaders(req.headers)),
      appendResponseHeader: (name: string, value: string) => res.appendHeader(name, value),
    }),
  });

  return async (req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    try {
      if (path === "/api/health") {
        const health = await checkHealth(services);
        return sendJson(res, health.status === "ok" ? 200 : 503, health);
      }
      if (path.startsWith("/api/auth/")) {
        // Accounts are created through account.signUp (first owner, or with an invite link) —
        // never through better-auth's open sign-up endpoint.
        if (path.startsWith("/api/auth/sign-up")) {
          return sendJson(res, 403, {
            message: "Sign up on the sign-up page, with an invite link once Argus is set up.",
          });
        }
        return await auth(req, res);
      }
      if (path.startsWith("/api/trpc/")) return await trpc(req, res);
      const upload = UPLOAD_ROUTE.exec(path);
      if (upload) return await handleUpload(services, req, res, upload[1]!);
      if (EXPORT_ROUTE.test(path)) return await handleExport(services, req, res, path);
      if (await routeKnowledgeUpload(services, req, res, path)) return;
      if (next) return await next(req, res);
      sendJson(res, 404, { message: `Nothing at ${path}.` });
    } catch (err) {
      services.log.error({ err, path }, "request failed");
      if (!res.headersSent)
        sendJson(res, 500, { message: "Something went wrong on the server. It has been logged; try again." });
      else res.end();
    }
  };
}
