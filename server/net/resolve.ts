/**
 * Host names as the outbound checks see them: the system resolver (every address, as getaddrinfo
 * returns them, with a timeout) and the canonical spelling compared with allow lists.
 */
import { lookup } from "node:dns/promises";
import { parseIpLiteral } from "./address.ts";

/** Every address a host name resolves to (as git's own getaddrinfo would see them). Tests inject one. */
export type Resolver = (host: string) => Promise<string[]>;

const DNS_TIMEOUT_MS = 10_000;

export const systemResolver: Resolver = async (host) => {
  const timeout = new Promise<never>((_, reject) => {
    const t = setTimeout(() => reject(new Error("DNS lookup timed out")), DNS_TIMEOUT_MS);
    t.unref();
  });
  const found = await Promise.race([lookup(host, { all: true, verbatim: true }), timeout]);
  return found.map((a) => a.address);
};

/** Host as compared with the allow list: lower case, no brackets or trailing dot, IP literals canonical. */
export function normaliseHost(host: string): string {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.+$/, "");
  return parseIpLiteral(h)?.address ?? h;
}
