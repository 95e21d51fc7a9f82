/**
 * Reciprocal rank fusion (Cormack et al. 2009): score(d) = Σ over rankings of 1 / (k + rank(d)), rank
 * 1-based. Done here rather than with LanceDB's RRFReranker so the result is deterministic (ties are
 * broken explicitly) and the arithmetic is testable by hand. Only ranks matter: BM25 scores and
 * cosines live on incomparable scales, which is why fusing ranks beats adding scores. Weights let a
 * weaker ranker break ties and rescue misses of a stronger one without outvoting it.
 */
export const RRF_K = 60;

export interface Fused {
  id: string;
  score: number;
  /** 1-based rank in each input list that contains the id (same order as the inputs). */
  ranks: (number | null)[];
}

/** `weights[i]` scales list i's contributions (default 1 each): weighted RRF. */
export function reciprocalRankFusion(
  rankings: readonly (readonly string[])[],
  k = RRF_K,
  weights: readonly number[] = [],
): Fused[] {
  const byId = new Map<string, Fused>();
  rankings.forEach((list, li) => {
    list.forEach((id, i) => {
      let f = byId.get(id);
      if (!f) {
        f = { id, score: 0, ranks: rankings.map(() => null) };
        byId.set(id, f);
      }
      // A duplicate within one list counts once, at its best rank.
      if (f.ranks[li] !== null) return;
      f.ranks[li] = i + 1;
      f.score += (weights[li] ?? 1) / (k + i + 1);
    });
  });
  const best = (f: Fused) => Math.min(...f.ranks.map((r) => r ?? Infinity));
  // Ties: the better single best rank, then the id — the same input always gives the same order.
  return [...byId.values()].sort(
    (a, b) => b.score - a.score || best(a) - best(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}
