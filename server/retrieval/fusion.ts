/**
 * Hybrid fusion: the full-text and vector rankings of one query, each as deep as FUSION.depth,
 * combined by a weighted sum of their scores, each leg's scores min–max normalised over its own list
 * (CombSUM, Fox & Shaw 1994; the normalisation of Lee 1997). A chunk missing from a list gets 0 from
 * it. Unlike reciprocal rank fusion (which Argus used before), the sum keeps how far apart the
 * scores are: a clear BM25 winner stays ahead of a crowd of near-equal cosines, and a clear vector
 * winner is not buried under BM25's long flat tail. Measured on the development halves of the bench's
 * sets (bench/measure/fusion.ts) with the local embedder; RRF lost to its own vector leg on Cranfield.
 *
 * The settings depend on what the vector leg is (fusionFor): the local embedder's per index profile
 * (prose: its latent vectors carry most of the meaning; code: names and words do, and BM25 finds
 * them), a model embedder's (openai, transformers) an untuned default, the older hash embedder's the
 * small weight it was measured at.
 */
import type { EmbedderRecord } from "./embed/types.ts";

export interface FusionSettings {
  /** Candidates taken from each leg. */
  depth: number;
  /** The vector leg's weight (full text's is 1). */
  vectorWeight: number;
  /** Per-query weighting (adaptiveWeights): each leg's weight × (1 + adaptive × how far its best
   * score stands above its second); null: the fixed weights. */
  adaptive: number | null;
  /** Pseudo-relevance feedback on the vector leg (Rocchio 1971): the query vector plus `weight` ×
   * the mean vector of the first fused ranking's top `docs`, searched again and fused again. */
  feedback: { docs: number; weight: number } | null;
  /** The fused ranking's first `depth` hits re-ordered by their fused score (the best 1) plus
   * `weight` × their relevance (relevance.ts; rerankByRelevance) plus `translation` × their
   * translation score (text/code-terms.ts, code only); null: the fused order. */
  rerank: { depth: number; weight: number; translation: number } | null;
}

/**
 * Per kind of vector leg. Tuned on the development halves only (bench/measure/fusion.ts; Cranfield
 * for prose, the two code sets for code), nDCG@10 / MRR@10 there:
 *  - prose: fused without feedback 0.394 (its vector leg alone 0.396, full text 0.359); with feedback
 *    from the top 3 at weight 2, 0.422 (top 5: 0.417, top 10: 0.398). Feedback on the code sets
 *    lowered MRR on Python (0.385 → 0.362 at 3 / 2) for nothing on JavaScript, so code has none;
 *  - code: weight 0.5 at depth 30: 0.554 / 0.385 (full text 0.549 / 0.338, vector 0.494 / 0.324);
 *    depth 50 and 100 gained nothing measurable (0.552 / 0.387, 0.551 / 0.390) and cost both legs
 *    more at 250k chunks;
 *  - code, per query (issue 31): each leg's weight grows with how clearly its best hit stands out
 *    (adaptiveWeights, factor 4), so a leg that found one clear answer outweighs one with a flat
 *    list. Mean MRR@10 over the four code sets' development halves (two doc-comment sets, two
 *    question sets; bench/measure/relevance-fit.ts), with the question words dropped and the
 *    full-text query expanded (search.ts): fixed weights 0.434, factor 1 / 2 / 4 / 8: 0.433 / 0.434 /
 *    0.444 / 0.444 (8 loses more on the Python questions); prose gained nothing from it and keeps
 *    its fixed weights and feedback;
 *  - code, the re-rank with the doc-word → code-word table (text/code-terms.ts, issue 31's
 *    follow-up): + 0.25 / 0.5 / 1 / 2 × the translation score, mean MRR@10 of the four code sets'
 *    development halves 0.490 / 0.495 / 0.495 / 0.480 against 0.486 without (bench/measure/code-terms.ts);
 *  - model embedders (openai, transformers): equal weights, untuned here (none can be run offline);
 *  - the older hash embedder: the small weight it was measured at.
 */
// Not frozen (`as const` types only): bench/measure/fusion.ts patches the feedback setting while tuning.
export const FUSION = {
  prose: { depth: 100, vectorWeight: 2, adaptive: null, feedback: { docs: 3, weight: 2 }, rerank: null },
  code: {
    depth: 30,
    vectorWeight: 0.5,
    adaptive: 4,
    feedback: null,
    rerank: { depth: 10, weight: 4, translation: 0.5 },
  },
  model: { depth: 30, vectorWeight: 1, adaptive: null, feedback: null, rerank: null },
  hash: { depth: 30, vectorWeight: 0.3, adaptive: null, feedback: null, rerank: null },
} as const satisfies Record<string, FusionSettings>;

export function fusionFor(embedder: EmbedderRecord): FusionSettings {
  if (embedder.name === "local") return embedder.params.profile === "prose" ? FUSION.prose : FUSION.code;
  if (embedder.name === "hash") return FUSION.hash;
  return FUSION.model;
}

export interface Scored {
  key: string;
  score: number;
}

/** How far a list's best score stands above its second, relative to the best (0 flat … 1 alone). */
export function sharpness(list: readonly Scored[]): number {
  if (!list.length) return 0;
  const top = list[0]!.score;
  if (list.length < 2) return 1;
  return top > 0 ? Math.max(0, (top - list[1]!.score) / top) : 0;
}

/** The two legs' weights for one query (FusionSettings.adaptive). */
export function adaptiveWeights(
  text: readonly Scored[],
  vector: readonly Scored[],
  settings: Pick<FusionSettings, "vectorWeight" | "adaptive">,
): { text: number; vector: number } {
  const a = settings.adaptive;
  if (a === null) return { text: 1, vector: settings.vectorWeight };
  return { text: 1 + a * sharpness(text), vector: settings.vectorWeight * (1 + a * sharpness(vector)) };
}

export interface FusedHit {
  key: string;
  score: number;
  /** The leg's own score where the chunk was in its list. */
  text?: number;
  vector?: number;
}

/**
 * Scores of one list mapped to [0, 1], best 1. A full list (as long as asked for) is cut from a longer
 * ranking, so its last score is the floor (0): what is missing scores 0 too. A shorter list holds
 * every match there is, and the floor is "no match" (0 for BM25 and cosine), so its last entry still
 * counts. One score alone is 1.
 */
function normalised(list: readonly Scored[], full: boolean): Map<string, number> {
  const out = new Map<string, number>();
  if (!list.length) return out;
  let max = -Infinity;
  let min = Infinity;
  for (const s of list) {
    if (s.score > max) max = s.score;
    if (s.score < min) min = s.score;
  }
  if (!full) min = Math.min(min, 0);
  const span = max - min;
  for (const s of list) if (!out.has(s.key)) out.set(s.key, span > 0 ? (s.score - min) / span : 1);
  return out;
}

/**
 * The fused ranking, best first; ties broken by the full-text rank, then the vector rank, then key.
 * `depth`: how many each leg was asked for (a list that long is cut from a longer ranking).
 */
export function fuse(
  text: readonly Scored[],
  vector: readonly Scored[],
  weights: { text: number; vector: number },
  depth = Infinity,
): FusedHit[] {
  const t = normalised(text, text.length >= depth);
  const v = normalised(vector, vector.length >= depth);
  const rawText = new Map(text.map((s) => [s.key, s.score]));
  const rawVector = new Map(vector.map((s) => [s.key, s.score]));
  const textRank = new Map(text.map((s, i) => [s.key, i]));
  const vectorRank = new Map(vector.map((s, i) => [s.key, i]));
  const keys = new Set([...t.keys(), ...v.keys()]);
  const out: FusedHit[] = [];
  for (const key of keys) {
    const hit: FusedHit = { key, score: weights.text * (t.get(key) ?? 0) + weights.vector * (v.get(key) ?? 0) };
    if (rawText.has(key)) hit.text = rawText.get(key)!;
    if (rawVector.has(key)) hit.vector = rawVector.get(key)!;
    out.push(hit);
  }
  const rank = (m: Map<string, number>, k: string) => m.get(k) ?? Infinity;
  return out.sort(
    (a, b) =>
      b.score - a.score ||
      rank(textRank, a.key) - rank(textRank, b.key) ||
      rank(vectorRank, a.key) - rank(vectorRank, b.key) ||
      (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
}

/**
 * The page re-ordered by fused score (relative to the page's best, so 0–1) + `weight` × relevance,
 * each hit with that total as its score. The fused score says how a hit stands among this query's
 * candidates; relevance says what the hit itself has of the query (its words weighted by rarity, its
 * cosine), which lifts the function whose docstring has three of the question's words over one
 * whose long body repeats one of them. Stable: equal totals keep the fused order.
 */
export function rerankByRelevance<T extends { score: number }>(
  page: readonly T[],
  relevance: readonly number[],
  weight: number,
  /** Added to each hit's total as it is (e.g. the translation score × its weight). */
  extra: readonly number[] = [],
): { hit: T; score: number }[] {
  const top = page.length ? Math.max(...page.map((h) => h.score)) : 0;
  return page
    .map((hit, i) => ({
      hit,
      i,
      score: (top > 0 ? hit.score / top : 0) + weight * (relevance[i] ?? 0) + (extra[i] ?? 0),
    }))
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .map(({ hit, score }) => ({ hit, score }));
}
