/**
 * Where a git fetch may go, decided before git runs. The URL's host is resolved here and every
 * address it resolves to must be public (server/net/address.ts) — unless the operator allows the host
 * (GIT_ALLOWED_HOSTS). git is then pinned to the address that was checked, so a DNS answer that
 * changes between the check and the connection (rebinding) cannot send it elsewhere:
 *   https   http.curloptResolve=<host>:<port>:<address> (TLS and the Host header keep the name);
 *   git://  the URL's host is replaced by the address (git:// has no TLS to keep the name for);
 *   ssh     -o HostName=<address> -o HostKeyAlias=<host> (known_hosts is still checked by name).
 * Redirects are never followed (http.followRedirects=false in git-exec.ts), so no hop goes unchecked.
 *
 * A refusal is one message whatever the target is or does: nothing is sent to it, so neither an open
 * port nor a closed one, a git server nor a metadata service, can show through the error.
 */
import { ingestError, quote } from "./errors.ts";
import type { ParsedGitUrl } from "./git-url.ts";
import { classifyAddress, parseIpLiteral } from "../../net/address.ts";
import { normaliseHost, systemResolver, type Resolver } from "../../net/resolve.ts";

export interface GitNetworkPolicy {
  /** Hosts fetched whatever they resolve to (GIT_ALLOWED_HOSTS): names or IP addresses, matched exactly, any port. */
  allowedHosts?: readonly string[];
  /** No address check at all: for the CLI, where the operator typed the URL on their own machine. */
  anyAddress?: boolean;
  /** ssh may use the server's keys, agent and ssh config (GIT_SSH_USE_SERVER_KEYS). Default: isolated. */
  useServerSshKeys?: boolean;
  /** DNS lookup; default the system resolver. Tests inject one. */
  resolve?: Resolver;
}

/** The command-line user's policy: their machine, their URL, their keys. */
export const OPERATOR_GIT_POLICY: GitNetworkPolicy = { anyAddress: true, useServerSshKeys: true };

export interface GitConnection {
  /** The URL to hand git: for git:// pinned to the checked address, else the URL as given. */
  fetchUrl: string;
  /** Extra git config for the fetch (the https pin). */
  config: [key: string, value: string][];
  /** Extra `ssh -o` options (the ssh pin). */
  sshOptions: string[];
  /** The address git will connect to; undefined when the host is allowed or any address is. */
  address?: string;
}

function refused(parsed: ParsedGitUrl, shownUrl: string) {
  return ingestError(
    "address_refused",
    `${quote(shownUrl)} is refused: Argus only fetches repositories from hosts on the public internet, and ` +
      `${quote(parsed.host)} is, or resolves to, a loopback, private, link-local or otherwise internal address. ` +
      "Use the repository's public URL, or ask the operator to allow this host (GIT_ALLOWED_HOSTS).",
  );
}

async function resolveHost(parsed: ParsedGitUrl, shownUrl: string, resolve: Resolver): Promise<string[]> {
  const literal = parseIpLiteral(parsed.host);
  if (literal) return [literal.address];
  let found: string[] = [];
  try {
    found = await resolve(parsed.host.replace(/^\[(.*)\]$/, "$1"));
  } catch {
    // no such name, or no DNS: the same answer below
  }
  if (found.length === 0)
    throw ingestError(
      "host_unreachable",
      `The host ${quote(parsed.host)} of ${quote(shownUrl)} could not be found (no such name, or DNS does not answer from the Argus server). Check the URL.`,
    );
  return found;
}

/** The pin for each transport: git connects to `address`, and nowhere else, for this URL's host. */
function pin(parsed: ParsedGitUrl, address: string): GitConnection {
  const v6 = address.includes(":");
  const bracketed = v6 ? `[${address}]` : address;
  const host = parsed.host.replace(/^\[(.*)\]$/, "$1");
  switch (parsed.transport) {
    case "https":
      return {
        fetchUrl: parsed.url,
        config: [["http.curloptResolve", `${host.toLowerCase()}:${parsed.port}:${bracketed}`]],
        sshOptions: [],
        address,
      };
    case "git":
      // git://host[:port]/path — the authority holds no user name (git-url.ts refuses one).
      return {
        fetchUrl: parsed.url.replace(/^git:\/\/[^/]+/, `git://${bracketed}:${parsed.port}`),
        config: [],
        sshOptions: [],
        address,
      };
    case "ssh":
      return {
        fetchUrl: parsed.url,
        config: [],
        // HostKeyAlias keeps the known_hosts check on the name ("[name]:port" as ssh records it off port 22).
        sshOptions: [`HostName=${address}`, `HostKeyAlias=${parsed.port === 22 ? host : `[${host}]:${parsed.port}`}`],
        address,
      };
  }
}

/**
 * Checks where the URL's host leads and returns how git must be run to go exactly there. Throws
 * address_refused (an internal address) or host_unreachable (no such name) before anything is sent.
 * `shownUrl` is the URL as messages may quote it.
 */
export async function planGitConnection(
  parsed: ParsedGitUrl,
  policy: GitNetworkPolicy = {},
  shownUrl: string = parsed.url,
): Promise<GitConnection> {
  const unpinned: GitConnection = { fetchUrl: parsed.url, config: [], sshOptions: [] };
  if (policy.anyAddress) return unpinned;
  const allowed = new Set((policy.allowedHosts ?? []).map(normaliseHost));
  if (allowed.has(normaliseHost(parsed.host))) return unpinned;
  const addresses = await resolveHost(parsed, shownUrl, policy.resolve ?? systemResolver);
  // Every answer must be public: git (or curl, or ssh) may pick any of them.
  for (const a of addresses) {
    let cls;
    try {
      cls = classifyAddress(a);
    } catch {
      throw refused(parsed, shownUrl); // a resolver answer that is not an address: never connect
    }
    if (cls !== "public") throw refused(parsed, shownUrl);
  }
  return pin(parsed, parseIpLiteral(addresses[0]!)!.address);
}
