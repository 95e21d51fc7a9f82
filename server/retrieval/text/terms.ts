/**
 * The terms the local embedder counts (embed/local.ts), and the literature's processing for them:
 * identifiers split into their words (split-identifiers.ts, CJK runs into character pairs),
 * lower-cased, English stop words dropped, Porter-stemmed (`parseConfigFiles` → pars, config, file).
 * One-letter parts (`i`, the `s` of `URLs`) are dropped, digits and CJK kept. Full text gets the same
 * conflation from LanceDB's own stemmer (store/indexes.ts), so both legs treat `tokens` and `token`
 * as one word.
 */
import { porterStem } from "./porter.ts";
import { cjkBigrams, IDENTIFIER, splitIdentifier } from "../split-identifiers.ts";

/** English stop words: Lucene's list (what LanceDB's English filter also removes), without `no`
 * and `not` (a negation changes what a question asks). */
export const STOP_WORDS = new Set(
  "a an and are as at be but by for if in into is it of on or such that the their then there these they this to was will with".split(
    " ",
  ),
);

/** Stems are memoised: a corpus has a few thousand distinct words and millions of occurrences. */
const stems = new Map<string, string>();
const MAX_MEMO = 200_000;

export function stem(word: string): string {
  let s = stems.get(word);
  if (s === undefined) {
    s = porterStem(word);
    if (stems.size >= MAX_MEMO) stems.clear();
    stems.set(word, s);
  }
  return s;
}

const KEEP_SHORT = /[\p{N}\p{Lo}]/u;

/** The terms of one identifier or word (`parseConfigFiles` → pars, config, file). */
export function identifierTerms(identifier: string): string[] {
  const out: string[] = [];
  for (const part of splitIdentifier(identifier)) {
    for (const p of cjkBigrams(part)) {
      const t = p.toLowerCase();
      if (t.length < 2 && !KEEP_SHORT.test(t)) continue;
      if (STOP_WORDS.has(t)) continue;
      out.push(stem(t));
    }
  }
  return out;
}

/** The text's terms, in order (repeats kept: counts are term frequencies). */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(IDENTIFIER)) out.push(...identifierTerms(match[0]));
  return out;
}
