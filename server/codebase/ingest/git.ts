/**
 * A git repository (https, ssh or git://) cloned into a snapshot: shallow (depth 1 by default), at a
 * branch, a tag or one commit.
 *
 * Safety, beyond the URL check in git-url.ts and the environment in git-exec.ts:
 * - the host must resolve to public addresses only, unless the operator allows it, and git is pinned
 *   to the address that was checked (git-network.ts); redirects are not followed;
 * - ssh never uses the server's keys, agent or ssh config unless the operator allows it;
 * - the clone is made without a checkout; `ls-tree` then lists every blob with its size, and the
 *   caps (file count, single file, total) are checked before a single file is written;
 * - core.symlinks=false: git writes a symlink as a small text file, which we then delete — a
 *   repository's symlinks are never materialised (reported as dropped), like an archive's;
 * - the download itself is capped by maxTotalBytes (read from git's progress), and the whole
 *   operation by gitTimeoutMs;
 * - an access token goes to git only as an `http.<origin>/.extraHeader` set through GIT_CONFIG_*
 *   environment variables: never in argv (visible to every user in `ps`), never in .git/config, and
 *   scrubbed from every message. The header is scoped to the repository's origin, so a redirect to
 *   another host does not carry it.
 */
import { rm } from "node:fs/promises";
import { ingestError, quote } from "./errors.ts";
import { classifyGitFailure, scrub } from "./git-errors.ts";
import { runGit, safeGitEnv, type GitRunOptions, type GitRunResult } from "./git-exec.ts";
import { planGitConnection, type GitNetworkPolicy } from "./git-network.ts";
import { checkCommitId, checkRefName, parseGitUrl, type ParsedGitUrl } from "./git-url.ts";
import { describeCap, type IngestLimits } from "./limits.ts";
import { inside } from "./paths.ts";
import { fileTooLarge, runIngest, type IngestContext } from "./run.ts";
import type { GitSnapshotInfo, IngestOptions, IngestSummary } from "./types.ts";

export interface GitIngestOptions extends IngestOptions {
  url: string;
  /** At most one of branch, tag, commit (full hash). None: the remote's default branch. */
  branch?: string;
  tag?: string;
  commit?: string;
  /** History depth to fetch (default 1). More lets git-meta diff and log further back. */
  depth?: number;
  /** For a private https repository: a personal access / deploy token. */
  accessToken?: string;
  /** The user name sent with the token (default "x-access-token": GitHub; GitLab accepts any). */
  tokenUser?: string;
  /** Which hosts may be reached and whether ssh may use the server's keys. Default: public hosts, no keys. */
  network?: GitNetworkPolicy;
}

const MAX_DEPTH = 100_000;
/** ls-tree output is ~100 bytes a file; this bounds it well past any file-count cap in use. */
const LS_TREE_MAX_BYTES = 256 * 1024 * 1024;

interface Plan {
  parsed: ParsedGitUrl;
  /** What git is given: the URL, pinned to the checked address for git://. */
  fetchUrl: string;
  ref?: { kind: "branch" | "tag" | "commit"; name: string };
  depth: number;
  env: Record<string, string>;
  secrets: string[];
}

/** Config entries for git's environment (GIT_CONFIG_COUNT/KEY_n/VALUE_n): never argv, never a file. */
function configEnv(entries: readonly (readonly [string, string])[]): Record<string, string> {
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(entries.length) };
  entries.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return entries.length ? env : {};
}

/** The config entry that carries the token as an extra header for the repository's origin only. */
export function gitAuthConfig(
  origin: string,
  token: string,
  user = "x-access-token",
): { entry: [string, string]; secrets: string[] } {
  const basic = Buffer.from(`${user}:${token}`).toString("base64");
  const header = `Authorization: Basic ${basic}`;
  return { entry: [`http.${origin}/.extraHeader`, header], secrets: [token, basic, header] };
}

async function planClone(o: GitIngestOptions): Promise<Plan> {
  const parsed = parseGitUrl(o.url);
  const given = [o.branch, o.tag, o.commit].filter((v) => v !== undefined && v !== "");
  if (given.length > 1) throw ingestError("bad_ref", "Give a branch, a tag or a commit — only one of them.");
  const ref = o.commit
    ? { kind: "commit" as const, name: checkCommitId(o.commit) }
    : o.tag
      ? { kind: "tag" as const, name: checkRefName(o.tag, "tag") }
      : o.branch
        ? { kind: "branch" as const, name: checkRefName(o.branch, "branch") }
        : undefined;
  const depth = o.depth ?? 1;
  if (!Number.isInteger(depth) || depth < 1 || depth > MAX_DEPTH)
    throw ingestError("bad_ref", `The history depth must be a whole number from 1 to ${MAX_DEPTH}.`);
  const config: [string, string][] = [];
  let secrets: string[] = [];
  if (o.accessToken) {
    if (parsed.transport !== "https" || !parsed.origin) {
      throw ingestError(
        "bad_url",
        "An access token works only with an https URL; give the repository's https URL with it.",
      );
    }
    // Printable ASCII only: a CR/LF would let the "token" inject more HTTP headers.
    if (!/^[\x21-\x7e]{1,4096}$/.test(o.accessToken))
      throw ingestError("bad_url", "The access token contains characters a token can't have; paste it again.");
    const user = o.tokenUser ?? "x-access-token";
    if (!/^[\x21-\x7e]{1,256}$/.test(user) || user.includes(":"))
      throw ingestError("bad_url", "The token user name is invalid.");
    const auth = gitAuthConfig(parsed.origin, o.accessToken, user);
    config.push(auth.entry);
    secrets = auth.secrets;
  }
  // Last, after every check that needs no network: where the host leads, and the pin to it.
  const network = o.network ?? {};
  const connection = await planGitConnection(parsed, network);
  config.push(...connection.config);
  const env = safeGitEnv(configEnv(config), {
    useServerKeys: network.useServerSshKeys,
    options: connection.sshOptions,
  });
  return { parsed, fetchUrl: connection.fetchUrl, ref, depth, env, secrets };
}

const UNITS: Record<string, number> = { bytes: 1, B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, TiB: 1024 ** 4 };

/** Follows git's progress lines; stops the download when it passes the total-size cap. */
export function progressWatcher(ctx: Pick<IngestContext, "limits" | "progress">): (line: string) => void {
  return (line) => {
    const recv = /^Receiving objects:\s+\d+% \((\d+)\/(\d+)\)(?:, ([\d.]+) (bytes|B|KiB|MiB|GiB|TiB))?/.exec(line);
    if (recv) {
      const bytes = recv[3] ? Math.round(Number(recv[3]) * (UNITS[recv[4]!] ?? 1)) : 0;
      if (bytes > ctx.limits.maxTotalBytes) {
        throw ingestError(
          "cap_total_bytes",
          `The repository download passed ${describeCap(ctx.limits, "maxTotalBytes")}. Ingest a smaller repository or raise the cap.`,
        );
      }
      ctx.progress({ phase: "cloning", bytes, files: 0 });
      return;
    }
    const upd = /^Updating files:\s+\d+% \((\d+)\/(\d+)\)/.exec(line);
    if (upd) ctx.progress({ phase: "checking_out", bytes: 0, files: Number(upd[1]) });
  };
}

interface TreeListing {
  blobs: number;
  bytes: number;
  symlinks: string[];
  submodules: string[];
}

/** Parses `ls-tree -r -l -z` and checks each cap against what the checkout would write. */
function checkTree(stdout: Buffer, limits: IngestLimits, ctx: IngestContext): TreeListing {
  const out: TreeListing = { blobs: 0, bytes: 0, symlinks: [], submodules: [] };
  for (const record of stdout.toString("utf8").split("\0")) {
    if (record === "") continue;
    const tab = record.indexOf("\t");
    const [mode, type, , size] = record.slice(0, tab).split(/\s+/);
    const file = record.slice(tab + 1);
    if (type === "commit") out.submodules.push(file);
    else if (mode === "120000") out.symlinks.push(file);
    else if (type === "blob") {
      const n = Number(size);
      if (n > limits.maxFileBytes) throw fileTooLarge(limits, file);
      ctx.tally.addFile();
      ctx.tally.addBytes(n);
      out.blobs++;
      out.bytes += n;
    }
  }
  return out;
}

export async function ingestGit(options: GitIngestOptions): Promise<IngestSummary> {
  const plan = await planClone(options);
  const { parsed, fetchUrl, ref, depth, env, secrets } = plan;
  const shownUrl = parsed.url;
  return runIngest("git", options, async (tree, ctx) => {
    const deadline = Date.now() + ctx.limits.gitTimeoutMs;
    const git = async (args: string[], extra: Partial<GitRunOptions> = {}): Promise<GitRunResult> => {
      const r = await runGit(args, {
        env,
        signal: ctx.signal,
        timeoutMs: Math.max(1, deadline - Date.now()),
        ...extra,
      });
      if (r.aborted) throw ingestError("aborted", "The ingest was cancelled; nothing was kept.");
      if (r.timedOut) {
        throw ingestError(
          "timeout",
          `Fetching ${quote(shownUrl)} took longer than ${describeCap(ctx.limits, "gitTimeoutMs")}; try again later, or raise the limit.`,
        );
      }
      return r;
    };
    const fetchFailed = (r: GitRunResult) =>
      classifyGitFailure(r.stderr, { url: shownUrl, ref, hasToken: secrets.length > 0, secrets });
    const internal = (what: string, r: GitRunResult) =>
      new Error(`git ${what} failed in ${tree}: ${scrub(r.stderr, secrets).trim().slice(-500)}`);
    const onStderrLine = progressWatcher(ctx);

    ctx.progress({ phase: "cloning", bytes: 0, files: 0 }, true);
    let target: string;
    if (ref?.kind === "commit") {
      // A commit by id can't be cloned; an empty repository fetches it (servers on protocol v2 allow it).
      let r = await git(["init", "-q", "--initial-branch=main", tree]);
      if (r.code !== 0) throw internal("init", r);
      r = await git(["-C", tree, "config", "core.symlinks", "false"]);
      if (r.code !== 0) throw internal("config", r);
      r = await git(["-C", tree, "fetch", "--progress", "--no-tags", `--depth=${depth}`, "--", fetchUrl, ref.name], {
        onStderrLine,
      });
      if (r.code !== 0) throw fetchFailed(r);
      target = "FETCH_HEAD";
    } else {
      const args = [
        "clone",
        "--progress",
        "--no-checkout",
        "--single-branch",
        `--depth=${depth}`,
        "--config",
        "core.symlinks=false",
      ];
      if (ref) args.push(`--branch=${ref.name}`);
      const r = await git([...args, "--", fetchUrl, tree], { onStderrLine });
      if (r.code !== 0) throw fetchFailed(r);
      target = "HEAD";
    }

    const head = await git(["-C", tree, "rev-parse", "--verify", "-q", `${target}^{commit}`]);
    if (head.code !== 0)
      throw ingestError("empty_repository", `The repository ${quote(shownUrl)} is empty: it has no commits yet.`);
    const commit = head.stdout.toString().trim();

    const ls = await git(["-C", tree, "ls-tree", "-r", "-l", "-z", "--full-tree", commit], {
      maxStdoutBytes: LS_TREE_MAX_BYTES,
    });
    if (ls.stdoutTruncated)
      throw ingestError(
        "cap_files",
        `The repository has too many files: more than ${describeCap(ctx.limits, "maxFiles")}.`,
      );
    if (ls.code !== 0) throw internal("ls-tree", ls);
    const listing = checkTree(ls.stdout, ctx.limits, ctx);

    ctx.progress({ phase: "checking_out", bytes: 0, files: 0, totalBytes: listing.bytes }, true);
    const co = await git(
      ref?.kind === "commit"
        ? ["-C", tree, "checkout", "--progress", "--detach", commit]
        : ["-C", tree, "checkout", "--progress", "-f"],
      { onStderrLine },
    );
    if (co.code !== 0) throw internal("checkout", co);
    // core.symlinks=false wrote each link as a file holding its target; remove those too.
    for (const link of listing.symlinks) {
      await rm(inside(tree, link), { force: true });
      ctx.drop(link, "symlink");
    }
    for (const sub of listing.submodules) ctx.drop(sub, "submodule");

    const info: GitSnapshotInfo = { url: shownUrl, commit, depth };
    if (ref?.kind === "branch") info.branch = ref.name;
    if (ref?.kind === "tag") info.tag = ref.name;
    if (!ref) {
      // The remote's default branch, as the clone named it.
      const b = await git(["-C", tree, "symbolic-ref", "-q", "--short", "HEAD"]);
      if (b.code === 0) info.branch = b.stdout.toString().trim();
    }
    return { git: info };
  });
}
