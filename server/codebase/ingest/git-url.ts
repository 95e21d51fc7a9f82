/**
 * Git URLs and ref names from users, checked before git ever sees them. Only https, ssh (URL or
 * scp-like `git@host:owner/repo.git`) and git:// pass; file:, ext::, fd::, http, local paths and
 * anything starting with "-" are refused. git is additionally told (protocol.allow,
 * GIT_ALLOW_PROTOCOL) to refuse every other transport, so a config `insteadOf` rewrite can't get
 * around this check.
 */
import { ingestError, quote } from "./errors.ts";

export type GitTransport = "https" | "ssh" | "git";

export interface ParsedGitUrl {
  /** Exactly what is passed to git (after `--`). */
  url: string;
  transport: GitTransport;
  /** As written in the URL (IPv6 in brackets); for https as the WHATWG parser normalised it. */
  host: string;
  /** The port git connects to (the transport's default when the URL names none). */
  port: number;
  /** For https: "https://host[:port]", the scope of the access-token header. */
  origin?: string;
}

const MAX_URL_LENGTH = 2048;
const DEFAULT_PORT: Record<GitTransport, number> = { https: 443, ssh: 22, git: 9418 };
// A hostname or IPv4 (letters, digits, dots, dashes, never a leading dash) or a bracketed IPv6.
const HOST = /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?|\[[0-9A-Fa-f:.]+\])$/;
const SCP_LIKE = /^(?:([A-Za-z0-9._-]+)@)?([^/:@]+|\[[^\]]+\]):(.+)$/;

const badUrl = (raw: string, why: string) => ingestError("bad_url", `${quote(raw)} is not a usable git URL: ${why}.`);
const refused = (raw: string, why: string) =>
  ingestError("transport_refused", `${quote(raw)} is refused: ${why}. Argus clones over https, ssh or git:// only.`);

export function parseGitUrl(input: string): ParsedGitUrl {
  const raw = input.trim();
  if (raw === "") throw ingestError("bad_url", "Give the repository's URL, e.g. https://github.com/owner/repo.git.");
  if (raw.length > MAX_URL_LENGTH) throw badUrl(raw, `longer than ${MAX_URL_LENGTH} characters`);
  // A leading dash would be read as an option by git or ssh (CVE-2017-1000117 and friends).
  if (raw.startsWith("-")) throw refused(raw, 'a URL may not start with "-"');
  // <transport>::<address> runs a remote helper (ext:: runs any command).
  if (raw.includes("::")) throw refused(raw, "remote-helper URLs (ext::, fd::, …) can run commands");
  if (/[\s\x00-\x1f\x7f]/.test(raw)) throw badUrl(raw, "it contains spaces or control characters");

  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(raw)?.[1]?.toLowerCase();
  if (scheme !== undefined) {
    if (scheme === "http") throw refused(raw, "plain http is unencrypted; use the https URL");
    if (scheme !== "https" && scheme !== "ssh" && scheme !== "git")
      throw refused(raw, `the ${scheme}: transport is not allowed`);
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw badUrl(raw, "it does not parse as a URL");
    }
    const host = u.hostname;
    if (!host || !HOST.test(host)) throw badUrl(raw, "the host name is missing or invalid");
    if (u.password) throw badUrl(raw, "it contains a password; give an access token separately instead");
    // https://token@host/… is how tokens leak into logs and process lists.
    if (u.username && scheme !== "ssh")
      throw badUrl(raw, "it contains a user name or token; give an access token separately instead");
    if (u.pathname === "" || u.pathname === "/") throw badUrl(raw, "it names no repository path");
    return {
      url: scheme + raw.slice(scheme.length), // "HTTPS://" → "https://": git's transport names are lower-case
      transport: scheme,
      host,
      port: u.port ? Number(u.port) : DEFAULT_PORT[scheme],
      ...(scheme === "https" && { origin: `https://${u.host}` }),
    };
  }

  const scp = SCP_LIKE.exec(raw);
  // git treats "host:path" as ssh only when no "/" comes before the ":"; anything else is a local path.
  if (scp && !raw.slice(0, raw.indexOf(":")).includes("/")) {
    const host = scp[2]!;
    const repoPath = scp[3]!;
    // "file:/etc/x", "C:\x": a one-letter "host" is a Windows drive, a scheme-looking host is a transport.
    if (/^(file|ext|fd)$/i.test(host) || /^[A-Za-z]$/.test(host))
      throw refused(raw, "local paths and remote helpers are not allowed");
    if (!HOST.test(host)) throw badUrl(raw, "the host name is invalid");
    if (repoPath.startsWith("-")) throw refused(raw, 'a repository path may not start with "-"');
    return { url: raw, transport: "ssh", host, port: DEFAULT_PORT.ssh };
  }
  throw refused(raw, "local paths are not git URLs (an owner can ingest a server folder as a local path instead)");
}

// A branch or tag name per git-check-ref-format: no "..", "@{", "//", control characters, spaces or
// ~^:?*[\ , no leading "-" or "/", no trailing "/", "." or ".lock".
export function isValidRefName(name: string): boolean {
  return (
    name.length > 0 &&
    name.length <= 255 &&
    !name.startsWith("-") &&
    !name.startsWith("/") &&
    !name.endsWith("/") &&
    !name.endsWith(".") &&
    !name.endsWith(".lock") &&
    !name.includes("..") &&
    !name.includes("@{") &&
    !name.includes("//") &&
    name !== "@" &&
    !/[\x00-\x20\x7f~^:?*[\\]/.test(name) &&
    !name.split("/").some((part) => part.startsWith("."))
  );
}

export function checkRefName(name: string, what: "branch" | "tag"): string {
  if (!isValidRefName(name)) throw ingestError("bad_ref", `${quote(name)} is not a valid ${what} name.`);
  return name;
}

export function checkCommitId(sha: string): string {
  const s = sha.trim().toLowerCase();
  // Fetching by id needs the full hash: servers don't resolve abbreviations.
  if (!/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(s))
    throw ingestError("bad_ref", `${quote(sha)} is not a full commit hash (40 hex digits); copy the whole id.`);
  return s;
}
