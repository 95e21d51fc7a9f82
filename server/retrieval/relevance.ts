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
 *    has the query's words (known × min(1, 4 × coverage));
 *  - known × two terms: the same share, counted only when the hit has two of the query's terms or
 *    more (all of a one-term query). A large code base knows most everyday words — the standard
 *    library has `world`, `cup`, `tie` and `home` — and a question about something else still
 *    finds each of its words somewhere, but rarely two of them in one place.
 * A logistic model of these per profile (MATCH_MODEL) gives `relevance` in [0, 1]: fitted on the
 * development halves of the bench's sets (bench/measure/relevance-fit.ts) to tell the hits that
 * answer real questions from the hits nonsense queries get (everyday questions, keyboard noise),
 * the two weighted equally. A hit at or above STRONG_AT is a strong match, below it a weak one; a
 * query with no strong hit has "no good match" (shared/search-match.ts). STRONG_AT is the
 * highest relevance that calls at most 3% of any development set's real queries "no good match"
 * (their best hit below it).
 *
 * Indexes of another embedder (hash, model embedders) have no IDF table or comparable cosines here:
 * their relevance is the share of the query's terms in the hit (FALLBACK_STRONG_AT), not calibrated.
 */
import type { MatchLabel } from "../shared/search-match.ts";

/** Fitted on the development halves only (bench/measure/relevance-fit.ts, see the README). */
export const MATCH_MODEL = {
  code: { coverage: 1.339, matched: 1.594, cosine: 1.284, knownCoverage: 4.861, knownTwoTerms: 4.861, bias: -4.291 },
  // Prose has no knownTwoTerms: on Cranfield's development half it cost real queries for nothing.
  prose: { coverage: 1.442, matched: 1.207, cosine: 2.64, knownCoverage: 7.226, knownTwoTerms: 0, bias: -5.555 },
} as const;
export const STRONG_AT = { code: 0.547, prose: 0.917 } as const;
export const FALLBACK_STRONG_AT = 0.6;

export type RelevanceProfile = keyof typeof MATCH_MODEL;

export interface RelevanceFeatures {
  coverage: number;
  /** The query's distinct terms in the hit. */
  matched: number;
  /** The query's distinct terms. */
  terms: number;
  cosine: number;
  known: number;
}

/** The model's inputs, in MATCH_MODEL's order (bench/measure/relevance-fit.ts fits them). */
export function modelInputs(f: RelevanceFeatures): {
  coverage: number;
  matched: number;
  cosine: number;
  knownCoverage: number;
  knownTwoTerms: number;
} {
  return {
    coverage: f.coverage,
    matched: f.terms ? f.matched / f.terms : 0,
    cosine: f.cosine,
    // How much the query's vocabulary being known counts depends on the hit having its words: a hit
    // without any gets nothing from it (else every hit of a query in the corpus's words looks good).
    knownCoverage: f.known * Math.min(1, 4 * f.coverage),
    knownTwoTerms: f.terms && f.matched >= Math.min(2, f.terms) ? f.known : 0,
  };
}

export function relevanceOf(profile: RelevanceProfile, f: RelevanceFeatures): number {
  const m = MATCH_MODEL[profile];
  const x = modelInputs(f);
  const z =
    m.bias +
    m.coverage * x.coverage +
    m.matched * x.matched +
    m.cosine * x.cosine +
    m.knownCoverage * x.knownCoverage +
    m.knownTwoTerms * x.knownTwoTerms;
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
