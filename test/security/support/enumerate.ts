/**
 * Everything a client can call, listed from the code itself — so a procedure, route or event added
 * without a security case makes the suite fail instead of going untested:
 * - tRPC: the app router's flattened procedure record (`_def.procedures`);
 * - HTTP: the path matchers of server/http/handler.ts (literal comparisons, *_ROUTE patterns, route*()
 *   dispatchers), better-auth's endpoints (`auth.api`, which /api/auth/* serves), and Next route
 *   handlers under app/ (route.ts files);
 * - Socket.IO: the events a connected server-side socket listens to.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { appRouter } from "../../../server/trpc/router.ts";
import type { Services } from "../../../server/context.ts";
import type { ArgusSocketServer } from "../../../server/realtime/socket.ts";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

export type ProcedureType = "query" | "mutation" | "subscription";

/** "account.signUp" → "mutation", for every procedure of the app router. */
export function trpcProcedures(): Record<string, ProcedureType> {
  const procedures = (
    appRouter as unknown as { _def: { procedures: Record<string, { _def: { type: ProcedureType } }> } }
  )._def.procedures;
  return Object.fromEntries(Object.entries(procedures).map(([name, p]) => [name, p._def.type]));
}

/**
 * The matchers server/http/handler.ts dispatches on, as keys: `=== /api/health`, `startsWith /api/auth/`,
 * `under /api/auth/sign-up` (pathIsUnder), `UPLOAD_ROUTE`, `routeKnowledgeUpload` … Read from the source on purpose: the handler is one
 * function of if-statements, and a new `if (path …)` there is exactly what must not go unnoticed.
 */
export function httpRouteMatchers(
  source = readFileSync(path.join(repoRoot, "server/http/handler.ts"), "utf8"),
): string[] {
  const keys = new Set<string>();
  for (const m of source.matchAll(/\b\w*[pP]ath\w*\s*===\s*"([^"]+)"/g)) keys.add(`=== ${m[1]}`);
  for (const m of source.matchAll(/\b\w*[pP]ath\w*\.startsWith\(\s*"([^"]+)"\s*\)/g)) keys.add(`startsWith ${m[1]}`);
  for (const m of source.matchAll(/\bpathIsUnder\(\s*\w+\s*,\s*"([^"]+)"\s*\)/g)) keys.add(`under ${m[1]}`);
  for (const m of source.matchAll(/\b([A-Z][A-Z0-9_]*_ROUTE)\.(?:exec|test)\(/g)) keys.add(m[1]!);
  for (const m of source.matchAll(/\bawait\s+(route[A-Z]\w*)\(/g)) keys.add(m[1]!);
  return [...keys].sort();
}

/** Next.js route handlers (app/**\/route.ts|js): API endpoints that bypass server/http/handler.ts. */
export function nextRouteHandlers(dir = path.join(repoRoot, "app")): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/^route\.(ts|tsx|js|mjs)$/.test(e.name)) out.push(path.relative(repoRoot, p).split(path.sep).join("/"));
    }
  };
  walk(dir);
  return out.sort();
}

/** better-auth's HTTP endpoints under /api/auth: "POST /sign-in/email", "GET /list-sessions" … */
export function authEndpoints(auth: Services["auth"]): string[] {
  const out = new Set<string>();
  for (const endpoint of Object.values(auth.api as Record<string, unknown>)) {
    const e = endpoint as {
      path?: string;
      options?: { method?: string | string[]; metadata?: { SERVER_ONLY?: boolean } };
    };
    if (!e.path || e.options?.metadata?.SERVER_ONLY) continue;
    const methods = ([] as string[]).concat(e.options?.method ?? "GET");
    for (const m of methods) out.add(`${m === "*" ? "GET" : m} ${e.path}`);
  }
  return [...out].sort();
}

/** Events Socket.IO's built-ins own; everything else a socket listens to is ours. */
const RESERVED_EVENTS = new Set([
  "connect",
  "connect_error",
  "disconnect",
  "disconnecting",
  "newListener",
  "removeListener",
  "error",
]);

/** The client→server events of a connected socket (by its id on the server). */
export function socketEvents(io: ArgusSocketServer, socketId: string): string[] {
  const socket = io.of("/").sockets.get(socketId);
  if (!socket) throw new Error(`no server-side socket ${socketId}`);
  return socket
    .eventNames()
    .map(String)
    .filter((e) => !RESERVED_EVENTS.has(e))
    .sort();
}
