/**
 * Which files of a pull request are reviewed: in the forge's order, while the count stays within
 * `max_files` and the changed lines (added + removed, from the patches) within `max_lines` of the
 * repository's `.argus.yaml`. A huge PR is reviewed on its first files, and the summary says which
 * were skipped (publish.ts recomputes the same selection from the same diff).
 */
import type { DiffFile } from "./types.ts";

export interface Limits {
  maxFiles: number;
  maxLines: number;
}

export function changedLines(patch: string | undefined): number {
  if (!patch) return 0;
  let n = 0;
  for (const line of patch.split("\n")) if (/^[+-]/.test(line) && !/^(\+\+\+|---) /.test(line)) n++;
  return n;
}

export function selectReviewed(
  files: DiffFile[],
  candidates: string[],
  limits: Limits,
): { reviewed: string[]; skipped: string[] } {
  const lines = new Map(files.map((f) => [f.path, changedLines(f.patch)]));
  const reviewed: string[] = [];
  const skipped: string[] = [];
  let total = 0;
  for (const path of candidates) {
    const n = lines.get(path) ?? 0;
    if (reviewed.length >= limits.maxFiles || (reviewed.length > 0 && total + n > limits.maxLines)) {
      skipped.push(path);
      continue;
    }
    reviewed.push(path);
    total += n;
  }
  return { reviewed, skipped };
}
