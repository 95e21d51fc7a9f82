/**
 * Git metadata of a snapshot that is a git checkout (git sources only: uploads never carry a .git,
 * it is in DEFAULT_IGNORES): the current commit, branches and tags, a diff between two refs, a log.
 * The data behind the agent's get_diff / get_git_log.
 *
 * Refs and paths come from users and the LLM: a ref may not start with "-" and is resolved to a
 * commit id with --end-of-options before any other command sees it; paths are validated like upload
 * paths and passed after "--" as literal pathspecs (no globs, no :(magic)). git runs with the
 * snapshot's .git named explicitly (no discovery up the tree), without external diff or textconv
 * drivers, and every output is bounded.
 */
import { lstat } from "node:fs/promises";
import path from "node:path";
import { invalid, notFound } from "../errors.ts";
import { runGit, safeGitEnv, type GitRunResult } from "./ingest/git-exec.ts";
import { safeRelativePath } from "./ingest/paths.ts";

export interface GitMetaOptions {
  /** Per git command (default 30 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface GitCommitInfo {
  sha: string;
  parents: string[];
  authorName: string;
  authorEmail: string;
  /** ISO 8601 with the author's offset. */
  authoredAt: string;
  subject: string;
}

export interface GitRef {
  name: string;
  /** The commit it points to (tags peeled). */
  commit: string;
}

export interface GitDiffFile {
  path: string;
  /** For renames and copies. */
  oldPath?: string;
  /** A added, M modified, D deleted, R renamed, C copied, T type changed. */
  status: string;
  /** null for binary files. */
  additions: number | null;
  deletions: number | null;
}

export interface GitDiff {
  from: string;
  to: string;
  files: GitDiffFile[];
  /** Unified diff, cut at maxBytes. */
  patch: string;
  truncated: boolean;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_REV_LENGTH = 256;
const LOG_MAX = 1000;
const REFS_MAX = 5000;
const COMMIT_FORMAT = "%H%x1f%P%x1f%an%x1f%ae%x1f%aI%x1f%s%x1e";

async function gitDir(root: string): Promise<string> {
  const dir = path.join(path.resolve(root), ".git");
  const st = await lstat(dir).catch(() => undefined);
  // A symlinked .git could point at any repository on the host.
  if (!st?.isDirectory())
    throw notFound("This snapshot has no git history: only git sources keep it (uploads and local folders don't).");
  return dir;
}

async function git(root: string, args: string[], o: GitMetaOptions, maxStdoutBytes?: number): Promise<GitRunResult> {
  // core.quotePath=false: non-ASCII paths in patches and listings as they are, not C-quoted octal.
  const r = await runGit(["-c", "core.quotePath=false", `--git-dir=${await gitDir(root)}`, ...args], {
    env: safeGitEnv({ GIT_LITERAL_PATHSPECS: "1", GIT_NO_REPLACE_OBJECTS: "1" }),
    timeoutMs: o.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    signal: o.signal,
    maxStdoutBytes,
  });
  if (r.timedOut)
    throw invalid(
      `git ${args[0]} took longer than ${Math.round((o.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000)} s; ask for less (fewer paths, a smaller range).`,
    );
  return r;
}

/** A revision from outside: a branch, tag, commit id, or HEAD~2-style expression — never an option or a range. */
export function checkRev(rev: string): string {
  if (
    typeof rev !== "string" ||
    rev.length === 0 ||
    rev.length > MAX_REV_LENGTH ||
    rev.startsWith("-") ||
    /[\x00-\x20\x7f]/.test(rev) ||
    rev.includes("..") ||
    rev.includes(":")
  ) {
    throw invalid(`${JSON.stringify(rev.slice(0, 80))} is not a revision: give a branch, a tag or a commit id.`);
  }
  return rev;
}

function checkPaths(paths: readonly string[] | undefined): string[] {
  if (!paths) return [];
  if (paths.length > 100) throw invalid("Give at most 100 paths.");
  return paths.map((p) => safeRelativePath(p, "path"));
}

/** Resolves a revision to a commit id, or explains why it can't (shallow clones lack old commits). */
async function resolve(root: string, rev: string, o: GitMetaOptions): Promise<string> {
  const r = await git(root, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${checkRev(rev)}^{commit}`], o);
  if (r.code !== 0) {
    const shallow = await git(root, ["rev-parse", "--is-shallow-repository"], o);
    const hint =
      shallow.stdout.toString().trim() === "true"
        ? " The snapshot is a shallow clone: re-ingest with more history to reach older commits."
        : "";
    throw notFound(`There is no commit ${JSON.stringify(rev)} in this snapshot.${hint}`);
  }
  return r.stdout.toString().trim();
}

function parseCommits(out: string): GitCommitInfo[] {
  return out
    .split("\x1e")
    .map((r) => r.replace(/^\n/, ""))
    .filter((r) => r !== "")
    .map((r) => {
      const [sha = "", parents = "", authorName = "", authorEmail = "", authoredAt = "", subject = ""] =
        r.split("\x1f");
      return { sha, parents: parents ? parents.split(" ") : [], authorName, authorEmail, authoredAt, subject };
    });
}

export async function isGitCheckout(root: string): Promise<boolean> {
  return gitDir(root).then(
    () => true,
    () => false,
  );
}

/** The checked-out commit, the branch (null when detached) and whether history is shallow. */
export async function gitHead(
  root: string,
  o: GitMetaOptions = {},
): Promise<{ commit: GitCommitInfo; branch: string | null; shallow: boolean }> {
  const sha = await resolve(root, "HEAD", o);
  const [log, branch, shallow] = await Promise.all([
    git(root, ["log", "-1", "--no-color", `--format=${COMMIT_FORMAT}`, sha], o),
    git(root, ["symbolic-ref", "-q", "--short", "HEAD"], o),
    git(root, ["rev-parse", "--is-shallow-repository"], o),
  ]);
  const commit = parseCommits(log.stdout.toString())[0];
  if (!commit) throw notFound("The snapshot's current commit can't be read.");
  return {
    commit,
    branch: branch.code === 0 ? branch.stdout.toString().trim() : null,
    shallow: shallow.stdout.toString().trim() === "true",
  };
}

/** Local and remote-tracking branches, and tags, each with the commit it points to. */
export async function gitRefs(
  root: string,
  o: GitMetaOptions & { limit?: number } = {},
): Promise<{ branches: GitRef[]; tags: GitRef[]; truncated: boolean }> {
  const limit = Math.min(Math.max(1, o.limit ?? REFS_MAX), REFS_MAX);
  const r = await git(
    root,
    [
      "for-each-ref",
      `--count=${limit + 1}`,
      "--format=%(refname)%00%(objectname)%00%(*objectname)",
      "refs/heads",
      "refs/remotes",
      "refs/tags",
    ],
    o,
  );
  const branches: GitRef[] = [];
  const tags: GitRef[] = [];
  const lines = r.stdout.toString().split("\n").filter(Boolean);
  for (const line of lines.slice(0, limit)) {
    const [ref = "", obj = "", peeled = ""] = line.split("\0");
    if (ref.startsWith("refs/tags/")) tags.push({ name: ref.slice("refs/tags/".length), commit: peeled || obj });
    else if (ref.startsWith("refs/heads/")) branches.push({ name: ref.slice("refs/heads/".length), commit: obj });
    else if (!ref.endsWith("/HEAD")) branches.push({ name: ref.slice("refs/remotes/".length), commit: obj });
  }
  return { branches, tags, truncated: lines.length > limit };
}

function parseNameStatus(out: string): Map<string, { status: string; oldPath?: string }> {
  const fields = out.split("\0");
  const map = new Map<string, { status: string; oldPath?: string }>();
  for (let i = 0; i < fields.length - 1;) {
    const status = fields[i++]!;
    if (status === "") continue;
    if (status.startsWith("R") || status.startsWith("C")) {
      const oldPath = fields[i++]!;
      map.set(fields[i++]!, { status: status[0]!, oldPath });
    } else {
      map.set(fields[i++]!, { status: status[0]! });
    }
  }
  return map;
}

function parseNumstat(out: string): Map<string, { additions: number | null; deletions: number | null }> {
  const fields = out.split("\0");
  const map = new Map<string, { additions: number | null; deletions: number | null }>();
  for (let i = 0; i < fields.length;) {
    const head = fields[i++]!;
    if (head === "") continue;
    const [a = "-", d = "-", p = ""] = head.split("\t");
    // With -z a rename is "a\td\t" followed by the old and the new path as separate fields.
    const file = p !== "" ? p : (i++, fields[i++] ?? "");
    map.set(file, { additions: a === "-" ? null : Number(a), deletions: d === "-" ? null : Number(d) });
  }
  return map;
}

/** The changes from one revision to another (default HEAD), optionally only under some paths. */
export async function gitDiff(
  root: string,
  o: GitMetaOptions & {
    from: string;
    to?: string;
    paths?: readonly string[];
    maxBytes?: number;
    contextLines?: number;
  },
): Promise<GitDiff> {
  const paths = checkPaths(o.paths);
  const from = await resolve(root, o.from, o);
  const to = await resolve(root, o.to ?? "HEAD", o);
  const maxBytes = Math.min(Math.max(1024, o.maxBytes ?? 1024 * 1024), 16 * 1024 * 1024);
  const context = Math.min(Math.max(0, Math.trunc(o.contextLines ?? 3)), 50);
  const base = [
    "diff",
    "--no-ext-diff",
    "--no-textconv",
    "--no-color",
    "--find-renames",
    "--end-of-options",
    from,
    to,
    "--",
    ...paths,
  ];
  const withOpt = (opt: string[]) => [base[0]!, ...opt, ...base.slice(1)];
  const [names, nums, patch] = await Promise.all([
    git(root, withOpt(["--name-status", "-z"]), o, 4 * 1024 * 1024),
    git(root, withOpt(["--numstat", "-z"]), o, 4 * 1024 * 1024),
    git(root, withOpt([`-U${context}`]), o, maxBytes),
  ]);
  for (const r of [names, nums, patch])
    if (r.code !== 0 && !r.stdoutTruncated) throw invalid(`git diff failed: ${r.stderr.trim().slice(-300)}`);
  const stats = parseNumstat(nums.stdout.toString());
  const files = [...parseNameStatus(names.stdout.toString())].map(([p, s]) => ({
    path: p,
    ...s,
    ...(stats.get(p) ?? { additions: null, deletions: null }),
  }));
  return { from, to, files, patch: patch.stdout.toString(), truncated: patch.stdoutTruncated || names.stdoutTruncated };
}

/** Commits reachable from a revision (default HEAD), newest first, optionally only those touching a path. */
export async function gitLog(
  root: string,
  o: GitMetaOptions & { ref?: string; path?: string; limit?: number } = {},
): Promise<{ commits: GitCommitInfo[]; truncated: boolean }> {
  const limit = Math.min(Math.max(1, Math.trunc(o.limit ?? 50)), LOG_MAX);
  const sha = await resolve(root, o.ref ?? "HEAD", o);
  const paths = o.path !== undefined ? checkPaths([o.path]) : [];
  const r = await git(
    root,
    [
      "log",
      "--no-color",
      `--format=${COMMIT_FORMAT}`,
      `--max-count=${limit + 1}`,
      "--end-of-options",
      sha,
      "--",
      ...paths,
    ],
    o,
    8 * 1024 * 1024,
  );
  if (r.code !== 0 && !r.stdoutTruncated) throw invalid(`git log failed: ${r.stderr.trim().slice(-300)}`);
  const commits = parseCommits(r.stdout.toString());
  if (r.stdoutTruncated) commits.pop(); // cut mid-record
  return { commits: commits.slice(0, limit), truncated: commits.length > limit || r.stdoutTruncated };
}
