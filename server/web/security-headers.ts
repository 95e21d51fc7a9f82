/**
 * Headers every response carries (set by server/http/handler.ts before any route runs, and by the Socket.IO
 * server on its own responses): no MIME sniffing, no framing, referrers cut to the origin when leaving
 * the site (invite and setup links carry tokens in their URLs), and a Content Security Policy.
 *
 * Pages get a policy with a fresh nonce per response: Next.js reads it from the request's
 * Content-Security-Policy header and puts it on its own scripts, so no other inline script runs.
 * Styles allow 'unsafe-inline' (React's style attributes and the toast library's injected sheet);
 * style injection cannot run code. Everything else (JSON, exports, health, 404s) gets a policy that
 * allows nothing at all, so a response rendered as a document by mistake is inert.
 *
 * Behind an https PUBLIC_URL every response also carries HSTS (180 days, no preload: an operator who
 * moves the domain is not locked in), so a browser never talks to Argus over plain http again.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, OutgoingMessage } from "node:http";

export const BASE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "strict-origin-when-cross-origin",
  // For browsers that predate CSP's frame-ancestors.
  "x-frame-options": "DENY",
};

export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** 128 random bits, base64 (the alphabet Next.js accepts in 'nonce-…'). */
export function newNonce(): string {
  return randomBytes(16).toString("base64");
}

export function pageCsp(nonce: string, opts: { dev: boolean }): string {
  return [
    "default-src 'self'",
    // 'strict-dynamic': chunks loaded by Next's nonced scripts may run; nothing else. React's dev
    // build needs eval (error overlays, stack reconstruction); production never does.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${opts.dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    // 'self' covers same-origin ws:/wss: (Socket.IO).
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** Strict-Transport-Security when the public URL is https: 180 days, subdomains left alone, no preload. */
export const HSTS = "max-age=15552000";

/** Whether responses carry HSTS: only when users reach Argus over https (PUBLIC_URL). */
export const hstsFor = (publicUrl: string | undefined) => publicUrl?.startsWith("https://") ?? false;

/** Sets the base headers and a Content Security Policy on a response (headers not yet sent). */
export function setSecurityHeaders(res: OutgoingMessage, csp: string = API_CSP, opts: { hsts?: boolean } = {}): void {
  for (const [name, value] of Object.entries(BASE_SECURITY_HEADERS)) res.setHeader(name, value);
  res.setHeader("content-security-policy", csp);
  if (opts.hsts) res.setHeader("strict-transport-security", HSTS);
}

/**
 * Prepares a request for Next.js: a page policy with a fresh nonce on the response, and the same
 * policy (plus x-nonce, for the root layout) on the request, replacing whatever the client sent —
 * Next takes the nonce for its scripts from the request's policy header.
 */
export function preparePageRequest(req: IncomingMessage, res: OutgoingMessage, opts: { dev: boolean }): void {
  const nonce = newNonce();
  const csp = pageCsp(nonce, opts);
  res.setHeader("content-security-policy", csp);
  delete req.headers["content-security-policy-report-only"];
  req.headers["content-security-policy"] = csp;
  req.headers["x-nonce"] = nonce;
}
