/**
 * Which web pages may act on Argus with the visitor's cookies. A browser names the page that made a
 * request in the Origin header (always on cross-origin requests, on every POST, and on every
 * WebSocket handshake); a request from another site's page is refused before any route runs.
 * Allowed: the configured origins (PUBLIC_URL, ALLOWED_ORIGINS), or — none configured — pages served
 * by the host the request was sent to. A request without Origin is not from a page in another
 * origin (a CLI, curl, a same-origin GET), and passes.
 */
import type { IncomingHttpHeaders } from "node:http";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** True for methods that may change something (everything but GET, HEAD and OPTIONS). */
export function isStateChanging(method: string | undefined): boolean {
  return !SAFE_METHODS.has((method ?? "GET").toUpperCase());
}

/** An Origin header value as a parsed http(s) URL, or null ("null", garbage, other schemes). */
function parseOrigin(origin: string): URL | null {
  try {
    const url = new URL(origin);
    return url.protocol === "http:" || url.protocol === "https:" ? url : null;
  } catch {
    return null;
  }
}

/** Whether a page at `origin` may act on this server (see the file comment). */
export function originAllowed(origin: string, host: string | undefined, allowed: readonly string[]): boolean {
  const url = parseOrigin(origin);
  if (!url) return false;
  if (allowed.length) return allowed.includes(url.origin);
  if (!host) return false;
  try {
    // Parsed with the page's own scheme, so a Host with that scheme's default port compares equal.
    return new URL(`${url.protocol}//${host}`).host === url.host;
  } catch {
    return false;
  }
}

/** Trusted origins for a request, in the form better-auth takes them (its own CSRF checks). */
export function trustedOriginsFor(host: string | null | undefined, allowed: readonly string[]): string[] {
  if (allowed.length) return [...allowed];
  return host ? [`http://${host}`, `https://${host}`] : [];
}

/**
 * Null when the request may go on; else the sentence to answer with (403). Only state-changing
 * requests are checked: reading is harmless, and cross-origin pages cannot read the answer.
 */
export function originRefusal(
  method: string | undefined,
  headers: IncomingHttpHeaders,
  allowed: readonly string[],
): string | null {
  if (!isStateChanging(method)) return null;
  return handshakeOriginRefusal(headers, allowed);
}

/** Like originRefusal for any method: the Socket.IO handshake is a GET that opens a long-lived channel. */
export function handshakeOriginRefusal(headers: IncomingHttpHeaders, allowed: readonly string[]): string | null {
  const origin = headers.origin;
  if (origin === undefined) return null;
  if (originAllowed(origin, headers.host, allowed)) return null;
  return (
    `Refused: this request came from a page at ${JSON.stringify(origin)}, which is not this Argus site. ` +
    `Open Argus at its own address and try again; an operator can allow another origin with ALLOWED_ORIGINS.`
  );
}
