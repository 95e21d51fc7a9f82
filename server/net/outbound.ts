/**
 * The one outbound policy (SSRF guard) for every URL a user chose: a workspace's model connection,
 * a web-app pipeline's model, retriever, web-search or reranker backend, an MCP HTTP server, a forge
 * or webhook URL. A URL may be requested when its host is public:
 *
 * - refused by name: `localhost` and `*.localhost`, single-label names (`redis`, `metadata` — they
 *   resolve through the server's search domains to its own network), and the private-use suffixes
 *   `.local`, `.internal`, `.home.arpa`, `.lan`;
 * - refused by address: the host, as an IP literal in any spelling (decimal, octal, hex, IPv4-mapped,
 *   NAT64 …: server/net/address.ts) or as every address its name resolves to, must be public — not
 *   loopback, private, link-local (cloud metadata), multicast or reserved;
 * - unless the operator allows the exact `host:port` (OUTBOUND_ALLOWED_HOSTS; a bare `host` entry, the
 *   deprecated PIPELINES_ALLOWED_HOSTS form, allows it on any port).
 *
 * `fetch` applies the check to every hop: redirects are followed by hand (at most 5), each new URL
 * checked again, credentials dropped when the origin changes. The address is checked when the URL
 * is used; a name whose DNS answer changes between the check and the connection (rebinding) is not
 * pinned (docs/security.md).
 *
 * One refusal message for every internal target, whatever is (or is not) listening there, so the
 * error cannot be used to scan ports.
 */
import { classifyAddress, parseIpLiteral } from "./address.ts";
import { normaliseHost, systemResolver, type Resolver } from "./resolve.ts";

export class OutboundRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OutboundRefusedError";
  }

  get userFacing(): boolean {
    return true;
  }
}

export interface OutboundPolicyOptions {
  /** `host:port` entries reached whatever they resolve to; a bare `host` allows every port. */
  allow?: readonly string[];
  resolve?: Resolver;
  /** Hops followed by `fetch` before it gives up. Default 5. */
  maxRedirects?: number;
}

/** `(url, what)` → resolves when `url` may be requested; `what` names the setting in the refusal. */
export type OutboundCheck = (url: string, what: string) => Promise<void>;

export interface OutboundPolicy {
  check: OutboundCheck;
  /** `fetch` with the check on the first URL and on every redirect. */
  fetch: typeof fetch;
}

const PRIVATE_SUFFIXES = [".localhost", ".local", ".internal", ".home.arpa", ".lan"];
const REDIRECT = new Set([301, 302, 303, 307, 308]);

/** Default port of a URL's scheme when the URL names none. */
const portOf = (u: URL) => u.port || (u.protocol === "https:" ? "443" : "80");

/** An allow-list entry as `host` or `host:port`, normalised (IPv6 in brackets: `[::1]:8080`). */
export function parseAllowEntry(entry: string): { host: string; port: string | null } | null {
  const text = entry.trim();
  if (!text || /[\s/@?#]/.test(text)) return null;
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(text);
  if (bracketed) return { host: normaliseHost(bracketed[1]!), port: bracketed[2] ?? null };
  const colons = text.split(":").length - 1;
  if (colons > 1) return { host: normaliseHost(text), port: null }; // a bare IPv6 address
  const [host, port] = text.split(":");
  if (!host || (port !== undefined && !/^\d{1,5}$/.test(port))) return null;
  return { host: normaliseHost(host), port: port ?? null };
}

function internalByName(host: string): boolean {
  if (parseIpLiteral(host)) return false;
  if (host === "localhost" || !host.includes(".")) return true;
  return PRIVATE_SUFFIXES.some((s) => host.endsWith(s));
}

function refusal(what: string, url: URL): OutboundRefusedError {
  const shown = `${url.origin}${url.pathname === "/" ? "" : url.pathname}`;
  const entry = `${url.hostname}:${portOf(url)}`;
  return new OutboundRefusedError(
    `${what} ${shown} is refused: Argus only sends requests to hosts on the public internet, and ${url.hostname} is, or resolves to, a loopback, private, link-local or otherwise internal address. To allow it, the operator adds ${entry} to OUTBOUND_ALLOWED_HOSTS.`,
  );
}

export function createOutboundPolicy(options: OutboundPolicyOptions = {}): OutboundPolicy {
  const entries = (options.allow ?? []).map(parseAllowEntry).filter((e) => e !== null);
  const resolve = options.resolve ?? systemResolver;
  const maxRedirects = options.maxRedirects ?? 5;

  const allowed = (host: string, port: string) => entries.some((e) => e.host === host && (e.port ?? port) === port);

  async function checkParsed(u: URL, what: string): Promise<void> {
    const host = normaliseHost(u.hostname);
    if (allowed(host, portOf(u))) return;
    if (internalByName(host)) throw refusal(what, u);
    const literal = parseIpLiteral(host);
    const addresses = literal ? [literal.address] : await resolve(host).catch(() => []);
    if (addresses.length === 0)
      throw new OutboundRefusedError(
        `${what}: the host ${u.hostname} could not be found from the Argus server; check the URL`,
      );
    const internal = addresses.some((a) => {
      try {
        return classifyAddress(a) !== "public";
      } catch {
        return true;
      }
    });
    if (internal) throw refusal(what, u);
  }

  function parse(url: string, what: string): URL {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw new OutboundRefusedError(`${what} must be an http(s) URL, got ${JSON.stringify(url.slice(0, 200))}`);
    }
    if (u.protocol !== "http:" && u.protocol !== "https:")
      throw new OutboundRefusedError(`${what} must be an http(s) URL, got ${JSON.stringify(url.slice(0, 200))}`);
    if (u.username || u.password)
      throw new OutboundRefusedError(`${what} must not carry a user name or password in the URL; use the key field`);
    return u;
  }

  const check: OutboundCheck = async (url, what) => checkParsed(parse(url, what), what);

  const guardedFetch: typeof fetch = async (input, init) => {
    const request = input instanceof Request ? input : null;
    let url = parse(request ? request.url : String(input), "The URL");
    let method = (init?.method ?? request?.method ?? "GET").toUpperCase();
    let body = init?.body ?? (request ? await request.clone().arrayBuffer() : undefined);
    const headers = new Headers(init?.headers ?? request?.headers);
    const signal = init?.signal ?? request?.signal;
    for (let hop = 0; ; hop++) {
      await checkParsed(url, "The URL");
      const response = await fetch(url, {
        ...init,
        method,
        headers,
        ...(body === undefined || body === null ? { body: null } : { body }),
        ...(signal ? { signal } : {}),
        redirect: "manual",
      });
      const location = response.headers.get("location");
      if (!REDIRECT.has(response.status) || !location || init?.redirect === "manual") return response;
      if (init?.redirect === "error") throw new TypeError(`redirect from ${url.origin} refused (redirect: "error")`);
      if (hop >= maxRedirects)
        throw new OutboundRefusedError(`${url.origin} redirected more than ${maxRedirects} times`);
      // Not awaited: under the web server, fetch is Next's, whose responses are tee'd for its cache, and
      // cancelling one branch of a tee settles only once the other is cancelled too — never, here.
      void response.body?.cancel().catch(() => undefined);
      const next = parse(new URL(location, url).toString(), "A redirect");
      // As fetch does: 303, and 301/302 after a POST, continue as a GET without a body.
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
        if (method !== "HEAD") method = "GET";
        body = undefined;
        headers.delete("content-type");
        headers.delete("content-length");
      } else if (body instanceof ReadableStream) {
        throw new OutboundRefusedError(`${url.origin} redirected a streamed request; it cannot be sent again`);
      }
      if (next.origin !== url.origin) {
        headers.delete("authorization");
        headers.delete("cookie");
        headers.delete("proxy-authorization");
        headers.delete("x-api-key");
      }
      url = next;
    }
  };

  return { check, fetch: guardedFetch };
}
