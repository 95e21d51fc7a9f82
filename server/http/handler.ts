/**
 * The HTTP routes Argus serves itself, in front of Next.js: /api/health, /api/auth/* (better-auth),
 * /api/trpc/* (tRPC). Everything else goes to Next (or 404 when the server runs without the UI).
 * A worker node serves /api/health only (createWorkerRequestHandler).
 *
 * Before any route, every request passes the web edge (server/web): security headers on the
 * response, the client address worked out (TRUSTED_PROXIES) for better-auth, and state-changing
 * requests from another site's page refused (Origin, 403).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import { toNodeHandler } from "better-auth/node";
import { SIGN_UP_CLOSED, toHeaders } from "../auth/auth.ts";
import type { Services } from "../context.ts";
import { checkHealth } from "./health.ts";
import type { Role } from "../process-role.ts";
import { createTrpcContext } from "../trpc/context.ts";
import { appRouter } from "../trpc/router.ts";
import { handleUpload, UPLOAD_ROUTE } from "./routes/snapshot-upload.ts";
import { EXPORT_ROUTE, handleExport } from "./routes/review-export.ts";
import { routeKnowledgeUpload } from "./routes/knowledge-upload.ts";
import { GITHUB_WEBHOOK_ROUTE, handleGitHubWebhook } from "./routes/github-webhook.ts";
import { GITLAB_WEBHOOK_ROUTE, handleGitLabWebhook } from "./routes/gitlab-webhook.ts";
import { CLIENT_IP_HEADER, clientIp, trustedProxies } from "../web/client-ip.ts";
import { originRefusal } from "../web/origin.ts";
import { pathIsUnder } from "../web/request-path.ts";
import { hstsFor, preparePageRequest, setSecurityHeaders } from "../web/security-headers.ts";

const MAX_BODY_BYTES = 2 * 1024 * 1024;

type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
  res.end(JSON.stringify(body));
}

async function sendHealth(services: Services, res: ServerResponse, role: Role) {
  const health = await checkHealth(services, role);
  sendJson(res, health.status === "down" ? 503 : 200, health);
}

/**
 * A worker node's HTTP (`argus start --role worker`): its health, for the orchestrator's checks, and
 * nothing else — the app is served by web nodes.
 */
export function createWorkerRequestHandler(services: Services): Handler {
  return async (req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    setSecurityHeaders(res);
    try {
      if (path === "/api/health") return await sendHealth(services, res, "worker");
      sendJson(res, 404, { message: `Nothing at ${path}: this is an Argus worker; it serves /api/health only.` });
    } catch (err) {
      services.log.error({ err, path }, "request failed");
      if (!res.headersSent) sendJson(res, 500, { message: "Something went wrong on the server. It has been logged." });
      else res.end();
    }
  };
}

export function createRequestHandler(services: Services, next?: Handler, role: Role = "all"): Handler {
  const { config } = services;
  const proxies = trustedProxies(config.trustedProxies);
  const dev = config.env === "development";
  const auth = toNodeHandler(services.auth);
  const trpc = createHTTPHandler({
    router: appRouter,
    basePath: "/api/trpc/",
    // No API input is anywhere near this; a bigger body is refused before it is buffered.
    maxBodySize: MAX_BODY_BYTES,
    createContext: ({ req, res }) =>
      createTrpcContext(services, toHeaders(req.headers), {
        appendResponseHeader: (name, value) => res.appendHeader(name, value),
      }),
  });

  const hsts = hstsFor(config.publicUrl);

  return async (req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    setSecurityHeaders(res, undefined, { hsts });
    const ip = clientIp(req.socket.remoteAddress, req.headers["x-forwarded-for"], proxies);
    if (ip) req.headers[CLIENT_IP_HEADER] = ip;
    else delete req.headers[CLIENT_IP_HEADER];
    try {
      const refusal = originRefusal(req.method, req.headers, config.allowedOrigins);
      if (refusal) return sendJson(res, 403, { message: refusal });
      if (path === "/api/health") return await sendHealth(services, res, role);
      // Accounts are created through account.signUp (first owner with the setup link, or with an
      // invite link) — never through better-auth's sign-up endpoint, in any spelling of its path.
      // (better-auth refuses it too, see server/auth/auth.ts; this answer names what to do.)
      if (pathIsUnder(path, "/api/auth/sign-up")) return sendJson(res, 403, { message: SIGN_UP_CLOSED });
      if (path.startsWith("/api/auth/")) return await auth(req, res);
      if (path.startsWith("/api/trpc/")) return await trpc(req, res);
      const upload = UPLOAD_ROUTE.exec(path);
      if (upload) return await handleUpload(services, req, res, upload[1]!);
      if (EXPORT_ROUTE.test(path)) return await handleExport(services, req, res, path);
      if (await routeKnowledgeUpload(services, req, res, path)) return;
      if (GITHUB_WEBHOOK_ROUTE.test(path)) return await handleGitHubWebhook(services, req, res);
      if (GITLAB_WEBHOOK_ROUTE.test(path)) return await handleGitLabWebhook(services, req, res);
      if (next) {
        preparePageRequest(req, res, { dev });
        return await next(req, res);
      }
      sendJson(res, 404, { message: `Nothing at ${path}.` });
    } catch (err) {
      services.log.error({ err, path }, "request failed");
      if (!res.headersSent)
        sendJson(res, 500, { message: "Something went wrong on the server. It has been logged; try again." });
      else res.end();
    }
  };
}
