/**
 * Which lines of a pull request can carry an inline comment: the new side's lines inside the diff's
 * hunks, as the forge's per-file patch shows them (GitHub and GitLab both refuse a comment elsewhere).
 * Added lines are kept apart from context lines: Argus comments only where the PR changed something.
 */
import type { DiffFile } from "./types.ts";

export interface FileLines {
  /** New-side lines the PR added. */
  added: Set<number>;
  /** Each hunk's new-side range [first, last] (context lines included): a comment's range must fit in one. */
  hunks: [number, number][];
}

const HUNK = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/;

export function fileLines(patch: string): FileLines {
  const added = new Set<number>();
  const hunks: [number, number][] = [];
  let line = 0;
  let inHunk = false;
  for (const text of patch.split("\n")) {
    const header = HUNK.exec(text);
    if (header) {
      line = Number(header[1]);
      const count = header[2] === undefined ? 1 : Number(header[2]);
      inHunk = count > 0;
      if (inHunk) hunks.push([line, line + count - 1]);
      continue;
    }
    if (!inHunk || text.startsWith("\\")) continue; // "\ No newline at end of file"
    if (text.startsWith("+")) added.add(line++);
    else if (text.startsWith(" ") || text === "") line++;
    // "-" lines exist on the old side only
  }
  return { added, hunks };
}

/** The diff's commentable lines per file (files without a patch — binary, too large — have none). */
export function diffLines(files: DiffFile[]): Map<string, FileLines> {
  const out = new Map<string, FileLines>();
  for (const f of files) if (f.patch && f.status !== "removed") out.set(f.path, fileLines(f.patch));
  return out;
}

/**
 * Where a finding at start…end goes on the diff: the whole range when it lies in one hunk and touches
 * an added line (a suggestion can replace it), else the first added line inside it; null when the
 * finding touches no added line (it belongs in the summary).
 */
export function anchorFor(
  lines: FileLines | undefined,
  start: number,
  end: number,
): { startLine: number; line: number; wholeRange: boolean } | null {
  if (!lines) return null;
  let firstAdded: number | null = null;
  for (let l = start; l <= end; l++)
    if (lines.added.has(l)) {
      firstAdded = l;
      break;
    }
  if (firstAdded === null) return null;
  const inOneHunk = lines.hunks.some(([a, b]) => start >= a && end <= b);
  if (inOneHunk) return { startLine: start, line: end, wholeRange: true };
  return { startLine: firstAdded, line: firstAdded, wholeRange: false };
}
