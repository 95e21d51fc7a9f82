/**
 * Which address a request comes from. X-Forwarded-For is written by whoever sends the request, so it
 * is believed only when the socket's peer is a proxy the operator listed (TRUSTED_PROXIES), and then
 * only the hops those proxies appended: the chain is read right to left and the first address that is
 * not a trusted proxy is the client. With no trusted proxies the socket address is the client.
 */
import { BlockList, isIP } from "node:net";

export interface TrustedProxies {
  has(address: string): boolean;
}

/** TRUSTED_PROXIES entries (IPs or CIDR ranges, validated by server/config.ts) as a lookup. */
export function trustedProxies(entries: readonly string[]): TrustedProxies {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split("/") as [string, string | undefined];
    const ip = plainIp(address);
    if (!ip) continue;
    const type = isIP(ip) === 4 ? "ipv4" : "ipv6";
    if (prefix === undefined) list.addAddress(ip, type);
    else list.addSubnet(ip, Number(prefix), type);
  }
  return { has: (address) => list.check(address, isIP(address) === 4 ? "ipv4" : "ipv6") };
}

/**
 * An address as written in a socket or a forwarded header, in plain form: "::ffff:10.0.0.1" →
 * "10.0.0.1", "[::1]:8080" → "::1", "10.0.0.1:5000" → "10.0.0.1". Undefined when it is not an IP.
 */
export function plainIp(raw: string | undefined): string | undefined {
  let value = raw?.trim();
  if (!value) return undefined;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed) value = bracketed[1]!;
  else if (/^[\d.]+:\d+$/.test(value)) value = value.slice(0, value.lastIndexOf(":"));
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(value);
  if (mapped) value = mapped[1]!;
  return isIP(value) ? value.toLowerCase() : undefined;
}

/** The client's address for a request (see the file comment); undefined only without a socket address. */
export function clientIp(
  socketAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  trusted: TrustedProxies,
): string | undefined {
  let client = plainIp(socketAddress);
  if (!client || !trusted.has(client) || forwardedFor === undefined) return client;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor).split(",");
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = plainIp(hops[i]);
    // Garbage in the chain: nothing left of it can be trusted; the last proxy we believe is the answer.
    if (!hop) return client;
    client = hop;
    if (!trusted.has(hop)) return hop;
  }
  return client;
}

/**
 * The request header that carries clientIp() to better-auth (rate limits, session records). Set by
 * server/http/handler.ts on every request, replacing any value the client sent.
 */
export const CLIENT_IP_HEADER = "x-argus-client-ip";
