/**
 * get_diff and get_git_log, through server/codebase/git-meta (validated refs, literal pathspecs,
 * bounded output). The repository's history can hold files the snapshot excludes (a committed .env,
 * vendored code): their diff sections are removed and counted, so git is no side door past the
 * ignore rules.
 */
import path from "node:path";
import { z } from "zod";
import { gitDiff, gitLog, type GitDiffFile } from "../../codebase/git-meta.ts";
import type { ToolEnv } from "./env.ts";
import { clip, defineTool, ok, plural } from "./format.ts";
import { DEFAULT_LOG_COMMITS, MAX_DIFF_CHARS, MAX_LOG_COMMITS } from "./limits.ts";

const rev = z.string().trim().min(1).max(256);

export const getDiffInput = z.object({
  from: rev.describe('The base revision: a branch, tag, commit id or expression like "HEAD~3".'),
  to: rev.optional().describe("The revision to compare with (default HEAD)."),
  paths: z
    .array(z.string().max(4096))
    .max(50)
    .optional()
    .describe("Only changes to these files or folders (relative to the project root)."),
  context_lines: z.coerce
    .number()
    .int()
    .min(0)
    .max(20)
    .default(3)
    .describe("Unchanged lines shown around each change (default 3)."),
});
export const getGitLogInput = z.object({
  ref: rev.optional().describe("Start from this revision (default HEAD)."),
  path: z.string().max(4096).optional().describe("Only commits touching this file or folder."),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_LOG_COMMITS)
    .default(DEFAULT_LOG_COMMITS)
    .describe(`Commits to list (default ${DEFAULT_LOG_COMMITS}, at most ${MAX_LOG_COMMITS}).`),
});

/** The work tree whose .git git-meta reads: ctx.gitDir (a checkout, or its .git folder) or the snapshot root. */
export function gitWorkTree(env: ToolEnv): string {
  const dir = env.ctx.gitDir;
  if (!dir) return env.ctx.root;
  return path.basename(dir) === ".git" ? path.dirname(dir) : dir;
}

const sign = (f: GitDiffFile) => (f.additions === null ? "binary" : `+${f.additions} −${f.deletions}`);

/**
 * Splits a unified diff into per-file sections. git writes them in the order of --name-status, so the
 * i-th section belongs to files[i]; a section whose header doesn't name its file is dropped (fail closed).
 */
function visibleSections(patch: string, files: GitDiffFile[], hidden: Set<string>): { text: string; dropped: number } {
  const sections = patch.split(/^(?=diff --git )/m).filter((s) => s.startsWith("diff --git "));
  const keep: string[] = [];
  let dropped = 0;
  sections.forEach((section, i) => {
    const f = files[i];
    const header = section.slice(0, section.indexOf("\n") >>> 0);
    if (!f || !header.includes(f.path) || hidden.has(f.path) || (f.oldPath !== undefined && hidden.has(f.oldPath)))
      dropped++;
    else keep.push(section);
  });
  return { text: keep.join(""), dropped };
}

export function getDiffTool(env: ToolEnv) {
  return defineTool({
    name: "get_diff",
    description:
      "The unified diff between two revisions of the repository (git snapshots only): the changed files with +/− counts, then the patch. " +
      "Narrow with paths when the diff is large. Files excluded by ignore rules are left out.",
    input: getDiffInput,
    async run(args, signal) {
      const paths = (args.paths ?? []).map((p) => env.sandbox.normalise(p));
      for (const p of paths) if (p !== "") env.sandbox.checkNotIgnored(p);
      const d = await gitDiff(gitWorkTree(env), {
        from: args.from,
        to: args.to,
        paths: paths.filter((p) => p !== ""),
        contextLines: args.context_lines,
        maxBytes: MAX_DIFF_CHARS * 4,
        signal,
      });
      const hidden = new Set(
        d.files
          .flatMap((f) => [f.path, ...(f.oldPath ? [f.oldPath] : [])])
          .filter((p) => env.sandbox.matcher.ignores(p)),
      );
      const files = d.files.filter((f) => !hidden.has(f.path) && !(f.oldPath && hidden.has(f.oldPath)));
      const range = `${d.from.slice(0, 10)}..${d.to.slice(0, 10)}`;
      const hiddenNote =
        files.length < d.files.length
          ? ` (${plural(d.files.length - files.length, "changed file")} excluded by ignore rules not shown)`
          : "";
      if (files.length === 0)
        return ok(
          `No changes between ${args.from} and ${args.to ?? "HEAD"} (${range})${paths.length ? ` under ${paths.join(", ")}` : ""}${hiddenNote}.`,
        );
      const added = files.reduce((n, f) => n + (f.additions ?? 0), 0);
      const removed = files.reduce((n, f) => n + (f.deletions ?? 0), 0);
      const list = files.map((f) => `  ${f.status} ${f.oldPath ? `${f.oldPath} → ` : ""}${f.path} (${sign(f)})`);
      const { text: patch, dropped } = visibleSections(d.patch, d.files, hidden);
      const notes: string[] = [];
      if (d.truncated) notes.push("The patch was cut by size: ask for fewer paths to see the rest.");
      if (dropped > d.files.length - files.length)
        notes.push(
          "Some sections could not be attributed to a file and were left out; ask for their paths one by one.",
        );
      const head = `Diff ${args.from}..${args.to ?? "HEAD"} (${range}): ${plural(files.length, "file")} changed, +${added} −${removed}${hiddenNote}\n${list.join("\n")}\n`;
      const text = `${head}\n${patch}${notes.map((n) => `\n[${n}]`).join("")}`;
      return ok(
        clip(
          text,
          MAX_DIFF_CHARS,
          () =>
            `[Diff cut at ${MAX_DIFF_CHARS.toLocaleString("en-US")} characters: call get_diff with paths (one file or folder at a time) to see the rest.]`,
        ),
      );
    },
  });
}

export function getGitLogTool(env: ToolEnv) {
  return defineTool({
    name: "get_git_log",
    description:
      "Recent commits of the repository (git snapshots only), newest first: short id, date, author and subject; optionally only those touching a path.",
    input: getGitLogInput,
    async run(args, signal) {
      let p: string | undefined;
      if (args.path !== undefined) {
        p = env.sandbox.normalise(args.path);
        if (p !== "") env.sandbox.checkNotIgnored(p);
      }
      const log = await gitLog(gitWorkTree(env), { ref: args.ref, path: p || undefined, limit: args.limit, signal });
      const scope = `${args.ref ?? "HEAD"}${p ? ` touching ${p}` : ""}`;
      if (log.commits.length === 0) return ok(`No commits in ${scope}.`);
      const rows = log.commits.map(
        (c) => `${c.sha.slice(0, 10)} ${c.authoredAt.slice(0, 10)} ${c.authorName}: ${c.subject}`,
      );
      const more = log.truncated
        ? `\n[More commits exist: raise limit (at most ${MAX_LOG_COMMITS}) or give path.]`
        : "";
      return ok(`${plural(log.commits.length, "commit")} of ${scope}, newest first:\n${rows.join("\n")}${more}`);
    },
  });
}
