/**
 * Where a request that a user's input aims may go (SSRF guard), for pipelines started from the web
 * app: a model's base_url, an HTTP retriever, web search, a rerank endpoint. The same check as the
 * git importer's (server/codebase/ingest/git-network.ts, net-address.ts): the URL's host is resolved
 * and every address must be public — not loopback, private, link-local, multicast or otherwise
 * internal — unless the operator allows the host (PIPELINES_ALLOWED_HOSTS, the format of
 * GIT_ALLOWED_HOSTS). The refusal names the parameter and never says what, if anything, is there.
 * The address is checked when the URL is first used; a name whose DNS answer changes afterwards
 * (rebinding) is not pinned, unlike git's connections (docs/pipelines.md).
 */
import { normaliseHost, systemResolver, type Resolver } from "../codebase/ingest/git-network.ts";
import { classifyAddress, parseIpLiteral } from "../codebase/ingest/net-address.ts";

export interface OutboundPolicy {
  /** Hosts reached whatever they resolve to: names or IP addresses, matched exactly, any port. */
  allowedHosts?: readonly string[];
  resolve?: Resolver;
}

export class OutboundRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OutboundRefusedError";
  }

  get userFacing(): boolean {
    return true;
  }
}

/** `(url, what)` → resolves when `url` may be requested; `what` names the parameter in the refusal. */
export type OutboundCheck = (url: string, what: string) => Promise<void>;

export function outboundCheck(policy: OutboundPolicy = {}): OutboundCheck {
  const allowed = new Set((policy.allowedHosts ?? []).map(normaliseHost));
  const resolve = policy.resolve ?? systemResolver;
  return async (url, what) => {
    let host: string;
    try {
      const u = new URL(url);
      if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("scheme");
      host = u.hostname;
    } catch {
      throw new OutboundRefusedError(`${what} must be an http(s) URL, got ${JSON.stringify(url.slice(0, 200))}`);
    }
    if (allowed.has(normaliseHost(host))) return;
    const bare = host.replace(/^\[(.*)\]$/, "$1");
    const literal = parseIpLiteral(bare);
    const addresses = literal ? [literal.address] : await resolve(bare).catch(() => []);
    if (addresses.length === 0)
      throw new OutboundRefusedError(
        `${what}: the host ${host} could not be found from the Argus server; check the URL`,
      );
    const internal = addresses.some((a) => {
      try {
        return classifyAddress(a) !== "public";
      } catch {
        return true;
      }
    });
    if (internal)
      throw new OutboundRefusedError(
        `${what} ${url} is refused: pipelines run from the web app only reach hosts on the public internet, and ${host} is, or resolves to, a loopback, private, link-local or otherwise internal address. Ask the operator to allow this host (PIPELINES_ALLOWED_HOSTS).`,
      );
  };
}
