/**
 * GitLab's multi-line discussion position (`position[line_range]`): a finding over several lines is
 * shown on its whole range when every line of it is an added line of the diff (else it sits on one
 * line, forge.ts). Each end of the range is named by GitLab's line code,
 * `<sha1 of the file's new path>_<old line>_<new line>`; for an added line the old number is the old
 * side's next line at that point of the hunk — the way GitLab's own diff parser counts (an added line
 * advances only the new side).
 */
import { createHash } from "node:crypto";

/** One end of a range, as gitbeaker sends it (decamelised to line_code, type, new_line). */
export interface LineRangeEnd {
  lineCode: string;
  type: "new";
  newLine: number;
}

export interface LineRange {
  start: LineRangeEnd;
  end: LineRangeEnd;
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/** Each added line of a patch (new-side number) with the old side's line number GitLab gives it. */
export function addedLinesWithOld(patch: string): Map<number, number> {
  const added = new Map<number, number>();
  let oldLine = 0;
  let newLine = 0;
  let inHunk = false;
  for (const text of patch.split("\n")) {
    const header = HUNK.exec(text);
    if (header) {
      oldLine = Number(header[1]);
      newLine = Number(header[2]);
      inHunk = true;
      continue;
    }
    if (!inHunk || text.startsWith("\\")) continue; // "\ No newline at end of file"
    if (text.startsWith("+")) added.set(newLine++, oldLine);
    else if (text.startsWith("-")) oldLine++;
    else if (text.startsWith(" ") || text === "") {
      oldLine++;
      newLine++;
    }
  }
  return added;
}

/** GitLab's code for a line of a file's diff. */
export function lineCode(path: string, oldLine: number, newLine: number): string {
  return `${createHash("sha1").update(path).digest("hex")}_${oldLine}_${newLine}`;
}

/** The range start…end as GitLab's line_range when it spans lines that are all added; else null. */
export function lineRangeOf(path: string, patch: string, start: number, end: number): LineRange | null {
  if (end <= start) return null;
  const added = addedLinesWithOld(patch);
  for (let l = start; l <= end; l++) if (!added.has(l)) return null;
  const at = (line: number): LineRangeEnd => ({
    lineCode: lineCode(path, added.get(line)!, line),
    type: "new",
    newLine: line,
  });
  return { start: at(start), end: at(end) };
}
