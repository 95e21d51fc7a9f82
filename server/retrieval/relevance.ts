/**
 * How relevant a hit is, on a scale that means the same for every query and index — unlike the
 * fused score, which is relative to the query's own lists (its best hit always scores the top).
 * From evidence about the hit itself and the query:
 *  - coverage: the share of the query's meaning found in the hit — its terms (stemmed, identifiers
 *    split) weighted by IDF in this index, so `cookie` counts more than `get`, and a word the index
 *    has never seen counts most;
 *  - matched: the share of the query's distinct terms in the hit, unweighted;
 *  - the cosine of the hit's stored vector with the query's (the local embedder's, whose values
 *    are comparable across queries of one index);
 *  - known: the IDF-weighted share of the query's terms the index has at all (a query made of
 *    words the corpus never uses is about something it does not hold), counted as far as the hit
 *    has the query's words (known × min(1, 4 × coverage)).
 * A logistic model of these per profile (MATCH_MODEL) gives `relevance` in [0, 1]: fitted on the
 * development halves of the bench's sets (bench/measure/relevance-fit.ts) to tell the hits that
 * answer real questions from the hits nonsense queries get (everyday questions, keyboard noise),
 * the two weighted equally. A hit at or above STRONG_AT is a strong match, below it a weak one; a
 * query with no strong hit has "no good match" (shared/search-match.ts). STRONG_AT is the
 * relevance below which 3% of the development halves' real queries fall.
 *
 * Indexes of another embedder (hash, model embedders) have no IDF table or comparable cosines here:
 * their relevance is the share of the query's terms in the hit (FALLBACK_STRONG_AT), not calibrated.
 */
import type { MatchLabel } from "../shared/search-match.ts";

/** Fitted on the development halves only (bench/measure/relevance-fit.ts, see the README). */
export const MATCH_MODEL = {
  code: { coverage: 1.569, matched: 3.277, cosine: 2.178, knownCoverage: 6.357, bias: -4.638 },
  prose: { coverage: 1.483, matched: 1.263, cosine: 2.707, knownCoverage: 7.291, bias: -5.642 },
} as const;
export const STRONG_AT = { code: 0.576, prose: 0.919 } as const;
export const FALLBACK_STRONG_AT = 0.6;

export type RelevanceProfile = keyof typeof MATCH_MODEL;

export interface RelevanceFeatures {
  coverage: number;
  /** Share of the query's distinct terms in the hit. */
  matched: number;
  cosine: number;
  known: number;
}

export function relevanceOf(profile: RelevanceProfile, f: RelevanceFeatures): number {
  const m = MATCH_MODEL[profile];
  // How much the query's vocabulary being known counts depends on the hit having its words: a hit
  // without any gets nothing from it (else every hit of a query in the corpus's words looks good).
  const knownCoverage = f.known * Math.min(1, 4 * f.coverage);
  const z =
    m.bias + m.coverage * f.coverage + m.matched * f.matched + m.cosine * f.cosine + m.knownCoverage * knownCoverage;
  return 1 / (1 + Math.exp(-z));
}

export function matchLabel(relevance: number, strongAt: number): MatchLabel {
  return relevance >= strongAt ? "strong" : "weak";
}

export interface QueryTerm {
  hash: number;
  idf: number;
  known: boolean;
}

export interface QueryFeatures {
  /** Distinct terms. */
  terms: number;
  /** IDF-weighted share of the query's terms that the index knows. */
  known: number;
}

export function queryFeatures(terms: readonly QueryTerm[]): QueryFeatures {
  const total = terms.reduce((s, t) => s + t.idf, 0);
  const known = terms.reduce((s, t) => s + (t.known ? t.idf : 0), 0);
  return { terms: terms.length, known: total > 0 ? known / total : 0 };
}

export interface HitFeatures {
  /** IDF-weighted share of the query's terms present in the hit. */
  coverage: number;
  /** Query terms present in the hit. */
  matched: number;
}

export function hitFeatures(terms: readonly QueryTerm[], hitTerms: ReadonlySet<number>): HitFeatures {
  let total = 0;
  let found = 0;
  let matched = 0;
  for (const t of terms) {
    total += t.idf;
    if (hitTerms.has(t.hash)) {
      found += t.idf;
      matched++;
    }
  }
  return { coverage: total > 0 ? found / total : 0, matched };
}
