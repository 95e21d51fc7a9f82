/**
 * Ranking metrics, each for one query (average them over queries). `ranked` is the system's list of
 * document ids, best first, without duplicates; `relevant` maps a relevant id to its gain (> 0).
 */

/** nDCG@k with graded gains: DCG = Σ gain / log2(rank + 1), divided by the DCG of the ideal order. */
export function ndcgAt(k: number, ranked: readonly string[], relevant: ReadonlyMap<string, number>): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => (dcg += (relevant.get(id) ?? 0) / Math.log2(i + 2)));
  const ideal = [...relevant.values()].sort((a, b) => b - a).slice(0, k);
  const idcg = ideal.reduce((s, g, i) => s + g / Math.log2(i + 2), 0);
  return idcg > 0 ? dcg / idcg : 0;
}

/** Average precision over the ranked list (binary relevance; unretrieved relevant docs count as 0). */
export function averagePrecision(ranked: readonly string[], relevant: ReadonlyMap<string, number>): number {
  if (relevant.size === 0) return 0;
  let hits = 0;
  let sum = 0;
  ranked.forEach((id, i) => {
    if (relevant.has(id)) {
      hits++;
      sum += hits / (i + 1);
    }
  });
  return sum / relevant.size;
}

export function recallAt(
  k: number,
  ranked: readonly string[],
  relevant: ReadonlyMap<string, number> | ReadonlySet<string>,
): number {
  if (relevant.size === 0) return 0;
  return ranked.slice(0, k).filter((id) => relevant.has(id)).length / relevant.size;
}

/** Reciprocal rank of the first relevant id within the top k (0 when none). */
export function reciprocalRankAt(k: number, ranked: readonly string[], relevant: ReadonlySet<string>): number {
  const i = ranked.slice(0, k).findIndex((id) => relevant.has(id));
  return i < 0 ? 0 : 1 / (i + 1);
}

export const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** First occurrence of each id, in order (several chunks of one document → the document once). */
export function dedupe(ids: readonly string[]): string[] {
  const seen = new Set<string>();
  return ids.filter((id) => !seen.has(id) && seen.add(id));
}
