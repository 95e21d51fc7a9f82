/** "Did you mean" for hints: the closest candidate within a small edit distance, if any. */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const c of candidates) {
    const d = distance(word, c);
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return best;
}

/** Levenshtein distance, two rows. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length]!;
}

/** `a`, `b`, `c` … for listing names in a hint, cut short when long. */
export function listNames(names: readonly string[], max = 8): string {
  const shown = names
    .slice(0, max)
    .map((n) => `\`${n}\``)
    .join(", ");
  return names.length > max ? `${shown} … (${names.length} in all)` : shown;
}

/** A hint naming the closest candidate, or listing what exists. */
export function suggestion(word: string, candidates: readonly string[], what: string): string {
  const near = closest(word, candidates);
  if (near) return `did you mean \`${near}\`?`;
  return candidates.length > 0 ? `${what}: ${listNames(candidates)}` : `there are no ${what}`;
}
