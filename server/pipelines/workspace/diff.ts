/** A line diff between two texts (two versions' YAML or parameter files), numbered on both sides. */
import { diffLines } from "diff";
import type { DiffLine } from "../../shared/diff-lines.ts";

export function lineDiff(before: string, after: string): { lines: DiffLine[]; added: number; removed: number } {
  const lines: DiffLine[] = [];
  let o = 1;
  let n = 1;
  let added = 0;
  let removed = 0;
  for (const part of diffLines(before, after)) {
    const texts = part.value.replace(/\n$/, "").split("\n");
    for (const text of texts) {
      if (part.added) {
        lines.push({ kind: "add", text, new: n++ });
        added++;
      } else if (part.removed) {
        lines.push({ kind: "del", text, old: o++ });
        removed++;
      } else lines.push({ kind: "same", text, old: o++, new: n++ });
    }
  }
  return { lines, added, removed };
}
