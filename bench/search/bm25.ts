/**
 * The baseline: Okapi BM25 as the IR literature runs it (Robertson & Zaragoza 2009), written here in
 * a few lines so that nothing of Argus's own processing is in it. Tokens: runs of letters and digits,
 * split at case changes (`getTokenCount` → get, token, count: code-search BM25 baselines split
 * identifiers, and prose has none to split), lower-cased, Lucene's English stop words removed,
 * Porter-stemmed (what Lucene's EnglishAnalyzer, and so Anserini's and most published Cranfield runs,
 * do). Scoring: k1 = 1.2, b = 0.75, idf =
 * ln(1 + (N − df + 0.5) / (df + 0.5)); a query's repeated words count once per occurrence.
 */
import { porterStem } from "../../server/retrieval/text/porter.ts";

/** Lucene's EnglishAnalyzer stop set (ENGLISH_STOP_WORDS_SET). */
export const LUCENE_STOP_WORDS = new Set(
  "a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with".split(
    " ",
  ),
);

export function standardTokens(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/[\p{L}\p{N}]+/gu)) {
    for (const part of m[0].match(/\p{Lu}?\p{Ll}+|\p{Lu}+(?!\p{Ll})|\p{N}+|\p{L}+/gu) ?? []) {
      const t = part.toLowerCase();
      if (!LUCENE_STOP_WORDS.has(t)) out.push(porterStem(t));
    }
  }
  return out;
}

export interface Bm25Index {
  /** Document ids ranked for `query`, best first (only documents sharing a term), at most k. */
  rank(query: string, k: number): string[];
}

export function bm25Index(docs: ReadonlyMap<string, string>, k1 = 1.2, b = 0.75): Bm25Index {
  const ids = [...docs.keys()];
  const postings = new Map<string, { doc: number; tf: number }[]>();
  const lengths = new Float64Array(ids.length);
  ids.forEach((id, d) => {
    const tokens = standardTokens(docs.get(id)!);
    lengths[d] = tokens.length;
    const tf = new Map<string, number>();
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [t, n] of tf) {
      let list = postings.get(t);
      if (!list) postings.set(t, (list = []));
      list.push({ doc: d, tf: n });
    }
  });
  const avgdl = lengths.reduce((a, x) => a + x, 0) / Math.max(1, ids.length);
  const n = ids.length;
  return {
    rank(query, k) {
      const scores = new Map<number, number>();
      for (const t of standardTokens(query)) {
        const list = postings.get(t);
        if (!list) continue;
        const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
        for (const { doc, tf } of list) {
          const s = (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * lengths[doc]!) / avgdl));
          scores.set(doc, (scores.get(doc) ?? 0) + s);
        }
      }
      return [...scores]
        .sort((x, y) => y[1] - x[1] || x[0] - y[0])
        .slice(0, k)
        .map(([d]) => ids[d]!);
    },
  };
}
