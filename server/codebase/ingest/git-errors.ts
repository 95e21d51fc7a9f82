/**
 * Turning git's stderr (LC_ALL=C) into an error a user can act on, with every secret scrubbed first.
 */
import { ingestError, quote, type IngestError } from "./errors.ts";

/** Replaces each secret (and its base64 / URL-encoded forms) with "***". */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) {
    if (s.length < 4) continue; // too short to scrub without mangling the message; never a real token
    for (const form of new Set([s, encodeURIComponent(s), Buffer.from(s).toString("base64")]))
      out = out.split(form).join("***");
  }
  return out;
}

export interface GitFailureContext {
  /** The URL as shown to users (never with credentials). */
  url: string;
  ref?: { kind: "branch" | "tag" | "commit"; name: string };
  hasToken: boolean;
  secrets: readonly string[];
}

const NOT_A_REPO = [
  /repository '.*' not found/i,
  /Repository not found/i,
  /does not appear to be a git repository/i,
  /not valid: is this a git repository/i,
  /access denied or repository not exported/i,
  /The requested URL returned error: 404/i,
  /\bno such repository\b/i,
  /remote: .*(does not exist|not found)/i,
];
const AUTH = [
  /Authentication failed/i,
  /could not read (Username|Password)/i,
  /terminal prompts disabled/i,
  /Permission denied \(publickey/i,
  /HTTP Basic: Access denied/i,
  /The requested URL returned error: 40[13]/i,
  /Invalid username or password/i,
];
const UNREACHABLE = [
  /Could not resolve host/i,
  /Could not resolve hostname/i,
  /Connection refused/i,
  /Connection timed out/i,
  /Network is unreachable/i,
  /No route to host/i,
  /Failed to connect/i,
  /unable to connect/i,
  /Connection reset/i,
  /Operation timed out/i,
];
const REF_MISSING = [
  /Remote branch .* not found/i,
  /couldn't find remote ref/i,
  /not our ref/i,
  /unadvertised object/i,
  /no such ref/i,
];

const any = (patterns: RegExp[], text: string) => patterns.some((p) => p.test(text));

/** The last "fatal:"/"error:" line, scrubbed, for the generic case. */
function lastProblem(stderr: string): string {
  const lines = stderr.split(/[\r\n]+/).filter((l) => /^(fatal|error|remote):/i.test(l.trim()));
  return (
    lines.at(-1) ??
    stderr
      .trim()
      .split(/[\r\n]+/)
      .at(-1) ??
    ""
  )
    .trim()
    .slice(0, 300);
}

export function classifyGitFailure(rawStderr: string, ctx: GitFailureContext): IngestError {
  const stderr = scrub(rawStderr, ctx.secrets);
  const url = quote(ctx.url, 200);
  if (/Host key verification failed/i.test(stderr)) {
    return ingestError(
      "auth_failed",
      `The SSH host key of ${url} is not known to the server; add the host to the Argus user's ~/.ssh/known_hosts.`,
    );
  }
  if (/SSL certificate problem|server certificate verification failed/i.test(stderr)) {
    return ingestError(
      "host_unreachable",
      `The TLS certificate of ${url} is not trusted; fix the server's certificate (or set GIT_SSL_CAINFO for a private CA).`,
    );
  }
  // http.followRedirects=false: git reports the redirect status itself as the failure.
  if (/The requested URL returned error: 30[12378]\b/.test(stderr)) {
    return ingestError(
      "redirect_refused",
      `${url} answered with a redirect. Argus does not follow redirects when fetching a repository (the new address would not have been checked); give the repository's current URL.`,
    );
  }
  if (any(REF_MISSING, stderr) && ctx.ref) {
    const what = ctx.ref.kind === "commit" ? "commit" : `${ctx.ref.kind}`;
    return ingestError(
      "ref_not_found",
      ctx.ref.kind === "commit"
        ? `The repository ${url} has no commit ${ctx.ref.name} (or the server won't serve a commit by id; give a branch or tag that contains it).`
        : `The repository ${url} has no ${what} ${quote(ctx.ref.name)}; check the name.`,
    );
  }
  if (any(AUTH, stderr)) {
    return ingestError(
      "auth_failed",
      ctx.hasToken
        ? `The access token was refused for ${url}: check that it is valid and can read this repository.`
        : `${url} asks for credentials: the repository is private or does not exist. For a private one, use its https URL with an access token (ssh clones get the server's SSH key only if the operator allows it: GIT_SSH_USE_SERVER_KEYS).`,
    );
  }
  if (any(NOT_A_REPO, stderr)) {
    return ingestError(
      "repo_not_found",
      `There is no git repository at ${url} (or it is private and needs an access token). Check the URL.`,
    );
  }
  if (any(UNREACHABLE, stderr)) {
    return ingestError(
      "host_unreachable",
      `The host of ${url} can't be reached from the Argus server; check the URL and the server's network.`,
    );
  }
  return ingestError("git_failed", `git could not fetch ${url}: ${lastProblem(stderr) || "no error message"}.`);
}
