/**
 * Which IP addresses a fetch on a user's behalf may reach. A user's git URL must not make the server
 * talk to itself or to its private network (SSRF): loopback, private (RFC 1918, CGNAT, ULA),
 * link-local (cloud metadata lives at 169.254.169.254), multicast, unspecified and reserved ranges
 * are "internal", and so is every IPv6 form that carries such an IPv4 address (mapped ::ffff:a.b.c.d,
 * IPv4-translated, NAT64 64:ff9b::/96, 6to4 2002::/16).
 *
 * Host names are written in more ways than dotted quads: inet_aton(3), which git, curl and ssh end up
 * in, reads "2130706433", "0x7f.1" and "0177.0.0.1" as 127.0.0.1. parseIpLiteral reads them the
 * same way, so such a host is judged as the address it is rather than looked up as a name.
 */
import net from "node:net";

export type AddressClass =
  | "public"
  | "loopback"
  | "private"
  | "link_local"
  | "multicast"
  | "unspecified"
  /** Documentation, benchmarking, broadcast, "future use", deprecated transition ranges. */
  | "reserved";

type Range = readonly [base: bigint, prefix: number, cls: AddressClass | "embedded_v4"];

const v4 = (dotted: string): bigint => BigInt(dotted.split(".").reduce((n, p) => n * 256 + Number(p), 0));

const V4_RANGES: readonly Range[] = [
  [v4("0.0.0.0"), 8, "unspecified"], // "this network"; 0.0.0.0 reaches the local host on Linux
  [v4("10.0.0.0"), 8, "private"],
  [v4("100.64.0.0"), 10, "private"], // carrier-grade NAT
  [v4("127.0.0.0"), 8, "loopback"],
  [v4("169.254.0.0"), 16, "link_local"],
  [v4("172.16.0.0"), 12, "private"],
  [v4("192.0.0.0"), 24, "reserved"],
  [v4("192.0.2.0"), 24, "reserved"],
  [v4("192.88.99.0"), 24, "reserved"],
  [v4("192.168.0.0"), 16, "private"],
  [v4("198.18.0.0"), 15, "reserved"],
  [v4("198.51.100.0"), 24, "reserved"],
  [v4("203.0.113.0"), 24, "reserved"],
  [v4("224.0.0.0"), 4, "multicast"],
  [v4("240.0.0.0"), 4, "reserved"], // includes 255.255.255.255
];

const V6_RANGES: readonly Range[] = [
  [0n, 128, "unspecified"],
  [1n, 128, "loopback"],
  [0xffffn << 32n, 96, "embedded_v4"], // ::ffff:a.b.c.d (IPv4-mapped)
  [0xffffn << 48n, 96, "embedded_v4"], // ::ffff:0:a.b.c.d (IPv4-translated)
  [0n, 96, "reserved"], // ::a.b.c.d (IPv4-compatible, deprecated)
  [0x64ff9bn << 96n, 96, "embedded_v4"], // NAT64: the gateway would connect to the IPv4 address
  [0x64ff9b0001n << 80n, 48, "reserved"], // local-use NAT64
  [0x100n << 112n, 64, "reserved"], // discard-only
  [0x20010000n << 96n, 32, "reserved"], // Teredo (hides an IPv4 address)
  [0x20010db8n << 96n, 32, "reserved"], // documentation
  [0x2002n << 112n, 16, "embedded_v4"], // 6to4: bits 16..48 are an IPv4 address
  [0xfcn << 120n, 7, "private"], // unique local fc00::/7
  [0xfe80n << 112n, 10, "link_local"],
  [0xfec0n << 112n, 10, "private"], // site-local, deprecated
  [0xffn << 120n, 8, "multicast"],
];

function inRange(value: bigint, bits: number, [base, prefix]: Range): boolean {
  const shift = BigInt(bits - prefix);
  return value >> shift === base >> shift;
}

function classifyV4(value: bigint): AddressClass {
  for (const r of V4_RANGES) if (inRange(value, 32, r)) return r[2] as AddressClass;
  return "public";
}

function classifyV6(value: bigint): AddressClass {
  for (const r of V6_RANGES) {
    if (!inRange(value, 128, r)) continue;
    if (r[2] !== "embedded_v4") return r[2];
    // 6to4 carries the address right after its 16-bit prefix; the others in the low 32 bits.
    const embedded = r[1] === 16 ? (value >> 80n) & 0xffffffffn : value & 0xffffffffn;
    return classifyV4(embedded);
  }
  return "public";
}

/** inet_aton(3) reading: 1–4 parts, each decimal, octal (leading 0) or hex (0x); the last fills the rest. */
function parseLooseV4(host: string): bigint | null {
  const parts = host.replace(/\.$/, "").split(".");
  if (parts.length < 1 || parts.length > 4) return null;
  const nums: bigint[] = [];
  for (const p of parts) {
    let n: bigint;
    if (/^0x[0-9a-f]*$/i.test(p)) n = p.length === 2 ? 0n : BigInt(p);
    else if (/^0[0-7]*$/.test(p)) n = p.length === 1 ? 0n : BigInt(`0o${p.slice(1)}`);
    else if (/^[1-9][0-9]*$/.test(p)) n = BigInt(p);
    else return null;
    nums.push(n);
  }
  const last = nums.pop()!;
  let value = 0n;
  for (const [i, n] of nums.entries()) {
    if (n > 255n) return null;
    value |= n << BigInt(8 * (3 - i));
  }
  if (last >= 1n << BigInt(8 * (4 - nums.length))) return null;
  return value | last;
}

function parseV6(text: string): bigint | null {
  let addr = text.replace(/%.*$/, ""); // a zone id ("fe80::1%eth0") does not change the class
  if (!net.isIPv6(addr)) return null;
  // A dotted IPv4 tail ("::ffff:127.0.0.1") becomes its two 16-bit groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(addr);
  if (dotted) {
    const v = v4(dotted[1]!);
    addr = `${addr.slice(0, dotted.index)}${(v >> 16n).toString(16)}:${(v & 0xffffn).toString(16)}`;
  }
  const hex = (s: string) => (s === "" ? [] : s.split(":").map((g) => BigInt(`0x${g}`)));
  const [head = "", rest] = addr.split("::");
  const left = hex(head);
  const right = rest === undefined ? [] : hex(rest);
  const groups =
    rest === undefined ? left : [...left, ...Array<bigint>(8 - left.length - right.length).fill(0n), ...right];
  if (groups.length !== 8) return null;
  return groups.reduce((acc, g) => (acc << 16n) | g, 0n);
}

export interface IpLiteral {
  family: 4 | 6;
  /** Canonical text: dotted quad, or RFC 5952 IPv6 as Node prints it. */
  address: string;
  value: bigint;
}

function v4Text(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 0xffn)).join(".");
}

/** The address a host names when it is an IP literal (any inet_aton form, IPv6 with or without brackets); else null. */
export function parseIpLiteral(host: string): IpLiteral | null {
  const h = host.trim().replace(/^\[(.*)\]$/, "$1");
  if (h.includes(":")) {
    const value = parseV6(h);
    if (value === null) return null;
    const canonical = new URL(`http://[${h.replace(/%.*$/, "")}]/`).hostname.slice(1, -1);
    return { family: 6, address: canonical, value };
  }
  const value = parseLooseV4(h);
  return value === null ? null : { family: 4, address: v4Text(value), value };
}

/** The class of an IP address (any literal form parseIpLiteral reads). Throws on something that is not one. */
export function classifyAddress(ip: string): AddressClass {
  const lit = parseIpLiteral(ip);
  if (!lit) throw new Error(`not an IP address: ${ip}`);
  return lit.family === 4 ? classifyV4(lit.value) : classifyV6(lit.value);
}

export const isPublicAddress = (ip: string): boolean => classifyAddress(ip) === "public";
