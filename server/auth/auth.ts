/**
 * Sessions and passwords are better-auth's job (scrypt hashes, signed httpOnly cookies, rotation).
 * Argus adds what better-auth does not know: workspaces, roles and invites (server/workspaces).
 */
import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { APIError, createAuthMiddleware } from "better-auth/api";
import type { IncomingHttpHeaders } from "node:http";
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import { CLIENT_IP_HEADER } from "../web/client-ip.ts";
import { trustedOriginsFor } from "../web/origin.ts";
import type { Actor } from "./access.ts";
import type { RateLimitStore } from "../lib/rate-limit.ts";

export const MIN_PASSWORD_LENGTH = 8;

export const SIGN_UP_CLOSED =
  "Sign up on the sign-up page: with the setup link on a new install, else with an invite link.";

/**
 * better-auth's sign-up endpoint, refused to every HTTP request whatever spelling of the path routed
 * it there: hooks see the endpoint's own path, and only a network call has a Request. Accounts are
 * created by account.signUp, which calls auth.api.signUpEmail in-process (no Request).
 */
const closeSignUpToTheNetwork = createAuthMiddleware(async (ctx) => {
  if (ctx.path === "/sign-up/email" && ctx.request) throw new APIError("FORBIDDEN", { message: SIGN_UP_CLOSED });
});

export function createAuth(opts: { config: Config; db: Db; secret: string; rateLimits?: RateLimitStore }) {
  const { config, db, secret, rateLimits } = opts;
  return betterAuth({
    appName: "Argus",
    basePath: "/api/auth",
    baseURL: config.publicUrl,
    secret,
    database: prismaAdapter(db, { provider: config.db.provider === "postgres" ? "postgresql" : "sqlite" }),
    emailAndPassword: { enabled: true, autoSignIn: true, minPasswordLength: MIN_PASSWORD_LENGTH },
    session: { expiresIn: 60 * 60 * 24 * 30, updateAge: 60 * 60 * 24 },
    hooks: { before: closeSignUpToTheNetwork },
    // Without PUBLIC_URL / ALLOWED_ORIGINS the app answers on whatever host the browser used;
    // requests are then trusted only from that same origin (CSRF protection stays on).
    trustedOrigins: config.allowedOrigins.length
      ? config.allowedOrigins
      : async (request) => trustedOriginsFor(request?.headers.get("host"), []),
    // Sign-in limits count per client address; with several nodes (REDIS_URL) in the shared store,
    // so an address gets the same number of tries whichever node its requests reach.
    rateLimit: {
      enabled: config.env === "production",
      ...(rateLimits
        ? {
            customStorage: {
              consume: async (key: string, rule: { window: number; max: number }) => {
                const d = await rateLimits.consume(`auth:${key}`, { max: rule.max, windowMs: rule.window * 1000 });
                return d.allowed
                  ? { allowed: true, retryAfter: null }
                  : { allowed: false, retryAfter: Math.ceil(d.retryAfterMs / 1000) };
              },
            },
          }
        : {}),
    },
    telemetry: { enabled: false },
    // Argus logs through pino; better-auth's own console output is limited to errors.
    logger: { level: "error" },
    advanced: {
      useSecureCookies: config.publicUrl?.startsWith("https://") ?? false,
      // The client address as server/http/handler.ts worked it out (TRUSTED_PROXIES), never a header the
      // client could have written itself.
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
    },
  });
}

export type Auth = ReturnType<typeof createAuth>;

export function toHeaders(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [key, value] of Object.entries(incoming)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(key, v);
  }
  return headers;
}

/** The signed-in user for a request's headers (cookie), or null. `refresh: false` only checks: a
 * request extends the session's life once a day (better-auth's updateAge); a background re-check
 * must not, or an idle open tab would keep its session alive forever. */
export async function actorFromHeaders(
  auth: Auth,
  headers: Headers,
  options: { refresh?: boolean } = {},
): Promise<Actor> {
  const session = await auth.api.getSession(
    options.refresh === false ? { headers, query: { disableRefresh: true } } : { headers },
  );
  if (!session) return null;
  return { userId: session.user.id, email: session.user.email, name: session.user.name };
}
