/**
 * What a review looks at. `project`: every indexed file. `paths`: files matching any entry (a file, a
 * folder prefix or a glob). `diff`: files changed between two refs, with the changed line ranges so
 * findings can be kept to the changed hunks — any file may still be read for context.
 */
import { gitDiff } from "../codebase/git-meta.ts";
import { invalid } from "../errors.ts";
import { matcherFor } from "../lib/path-match.ts";
import type { ReviewScope } from "./report/schema.ts";

export interface ResolvedScope {
  files: string[];
  /** For diff scopes: changed line ranges (new side) per file. */
  hunks?: Map<string, [number, number][]>;
  /** One line for the agent's first message and the report. */
  description: string;
}

export { matcherFor };

/** Parses `@@ -a,b +c,d @@` headers of a unified diff into new-side line ranges per file. */
export function changedRanges(patch: string): Map<string, [number, number][]> {
  const out = new Map<string, [number, number][]>();
  let current: string | null = null;
  for (const line of patch.split("\n")) {
    if (line.startsWith("+++ ")) {
      const target = line.slice(4).trim();
      current = target === "/dev/null" ? null : target.replace(/^b\//, "");
      if (current && !out.has(current)) out.set(current, []);
      continue;
    }
    const m = current ? /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(line) : null;
    if (m && current) {
      const start = Number(m[1]);
      const count = m[2] === undefined ? 1 : Number(m[2]);
      if (count > 0) out.get(current)!.push([start, start + count - 1]);
    }
  }
  return out;
}

export async function resolveScope(scope: ReviewScope, ctx: { root: string; files: string[] }): Promise<ResolvedScope> {
  if (scope.kind === "project")
    return { files: ctx.files, description: `the whole project (${ctx.files.length} files)` };
  if (scope.kind === "paths") {
    const match = matcherFor(scope.paths);
    const files = ctx.files.filter(match);
    if (files.length === 0)
      throw invalid(
        `No file of the project matches ${scope.paths.map((p) => `"${p}"`).join(", ")}. Use paths relative to the project root, a folder, or a glob such as src/**/*.ts.`,
      );
    return {
      files,
      description: `${files.length} file${files.length === 1 ? "" : "s"} matching ${scope.paths.join(", ")}`,
    };
  }
  const diff = await gitDiff(ctx.root, { from: scope.base, to: scope.head, contextLines: 0 }).catch((err: unknown) => {
    const reason = err instanceof Error ? err.message : String(err);
    throw invalid(
      `Cannot diff ${scope.base}..${scope.head}: ${reason} Import the repository with enough history (both refs must be in the snapshot).`,
    );
  });
  const indexed = new Set(ctx.files);
  const hunks = changedRanges(diff.patch);
  const files = diff.files.filter((f) => f.status !== "D" && indexed.has(f.path)).map((f) => f.path);
  return {
    files,
    hunks,
    description: `the changes from ${scope.base} to ${scope.head} (${files.length} changed file${files.length === 1 ? "" : "s"})`,
  };
}

/** Whether a finding lies in scope: its file is in scope and, for diffs, it overlaps a changed hunk. */
export function inScope(
  scope: ResolvedScope,
  finding: { file: string; startLine: number; endLine: number },
  inFiles = new Set(scope.files),
): boolean {
  if (!inFiles.has(finding.file)) return false;
  if (!scope.hunks) return true;
  const ranges = scope.hunks.get(finding.file) ?? [];
  return ranges.some(([a, b]) => finding.startLine <= b && finding.endLine >= a);
}
