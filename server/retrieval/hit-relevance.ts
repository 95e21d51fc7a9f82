/**
 * The relevance of one query's hits in one index (relevance.ts has the model): the query's terms
 * and their IDF are looked up once, each hit's terms and cosine give its relevance and label.
 */
import { embeddingText } from "./embed/embed-rows.ts";
import { fnv1a } from "./embed/hash.ts";
import { LocalEmbedder } from "./embed/local.ts";
import {
  FALLBACK_STRONG_AT,
  matchLabel,
  queryFeatures,
  relevanceOf,
  STRONG_AT,
  hitFeatures,
  type QueryTerm,
} from "./relevance.ts";
import type { ChunkIndex, StoredHit } from "./store/index.ts";
import { codeTermTable, translationScore } from "./text/code-terms.ts";
import { terms } from "./text/terms.ts";
import type { MatchLabel } from "../shared/search-match.ts";

export interface QueryRelevance {
  /** Whether `of` wants each hit's cosine (the hybrid search then reads the page's vectors). */
  readonly needsVectors: boolean;
  /** Cosines of full-text hits with the query (their vectors read once), when needed. */
  cosines(hits: readonly StoredHit[]): Promise<(number | undefined)[]>;
  /** Each hit's relevance and label (`cosines` parallel to `hits`). */
  score(
    hits: readonly StoredHit[],
    cosines: readonly (number | undefined)[],
  ): { relevance: number; match: MatchLabel }[];
  /** Each hit's translation score (text/code-terms.ts: the query's terms it has, the missing ones
   * by their code words), over code indexes of the local embedder; 0s elsewhere. */
  translation(hits: readonly StoredHit[]): number[];
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** `embedder`: the index's own query embedder when it is the local one (the IDF table lives there). */
export function relevanceFor(index: ChunkIndex, query: string, local: LocalEmbedder | null): QueryRelevance {
  if (!local) return coverageOnly(query);
  const profile = index.embedder.params.profile === "prose" ? "prose" : "code";
  const qTerms: QueryTerm[] = local.termWeights(query);
  let queryVector: Float32Array | null = null;
  // The page's term sets are computed once for both the relevance and the translation score.
  const termSets = new WeakMap<StoredHit, Set<number>>();
  const termSetOf = (h: StoredHit) => {
    let t = termSets.get(h);
    if (!t) termSets.set(h, (t = local.termSet(embeddingText(h))));
    return t;
  };
  return {
    needsVectors: true,
    async cosines(hits) {
      if (!hits.length) return [];
      queryVector ??= (await local.embedQueries([query]))[0]!;
      const withVectors = await index.fetchHits(hits, { vectors: true });
      return withVectors.map((h) => (h.vector ? dot(queryVector!, h.vector) : undefined));
    },
    score(hits, cosines) {
      const sets = hits.map(termSetOf);
      // A term the index holds once is not in its IDF table (that keeps terms of two chunks or
      // more) but is known all the same when a hit has it: a rare word of a small knowledge base.
      const seen = (hash: number) => sets.some((t) => t.has(hash));
      const { known } = queryFeatures(qTerms.map((t) => (t.known || !seen(t.hash) ? t : { ...t, known: true })));
      return hits.map((_, i) => {
        const f = hitFeatures(qTerms, sets[i]!);
        const relevance = relevanceOf(profile, {
          coverage: f.coverage,
          matched: f.matched,
          terms: qTerms.length,
          cosine: cosines[i] ?? 0,
          known,
        });
        return { relevance: round(relevance), match: matchLabel(relevance, STRONG_AT[profile]) };
      });
    },
    translation(hits) {
      if (profile !== "code") return hits.map(() => 0);
      const table = codeTermTable(fnv1a);
      const q = qTerms.map((t) => ({ term: t.hash, weight: t.idf }));
      return hits.map((h) => translationScore(table, q, termSetOf(h)));
    },
  };
}

/** Other embedders: the share of the query's distinct terms the hit has. */
function coverageOnly(query: string): QueryRelevance {
  const wanted = new Set(terms(query));
  return {
    needsVectors: false,
    cosines: async (hits) => hits.map(() => undefined),
    score: (hits) =>
      hits.map((hit) => {
        if (!wanted.size) return { relevance: 0, match: "weak" as const };
        const have = new Set(terms(embeddingText(hit)));
        let n = 0;
        for (const t of wanted) if (have.has(t)) n++;
        const relevance = n / wanted.size;
        return { relevance: round(relevance), match: matchLabel(relevance, FALLBACK_STRONG_AT) };
      }),
    translation: (hits) => hits.map(() => 0),
  };
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

export function localEmbedderOf(embedder: unknown): LocalEmbedder | null {
  return embedder instanceof LocalEmbedder ? embedder : null;
}
