/**
 * Doc words → code words: a word-translation table learned from documented functions (the first
 * sentence of a doc comment or docstring against the function's identifiers, split and stemmed;
 * IBM Model 1, trained by bench/search/train-code-terms.ts on packages that are in no bench set,
 * shipped as code-terms.json). A question is asked in English ("Returns true if the value is a plain
 * object"), the function says `isPlainObject`, `proto`, `typeof`: the table gives, per stemmed doc
 * word, the code words that functions documented with it tend to contain, with p(code word | doc
 * word).
 *
 * Used over indexes of the `code` profile only (hit-relevance.ts, search.ts): translationScore adds
 * to the relevance re-rank of the page how much of the query a hit has, a word it lacks counted by
 * the best translation it has.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { stem } from "./terms.ts";

/** Doc word → [code word, p(code | doc) relative to the doc word's best translation, 0–1]. */
export type CodeTermTable<K = string> = Map<K, [K, number][]>;

export interface CodeTermFile {
  /** Doc word stem → [code word as written, p(code word | doc word)], best first. */
  terms: Record<string, [string, number][]>;
}

const FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), "code-terms.json");
const cache = new Map<unknown, CodeTermTable<unknown>>();

/** The table from its file, keys as `key` makes them of stems (a stem itself, or the embedder's hash). */
export function tableFrom<K>(file: CodeTermFile, key: (stem: string) => K): CodeTermTable<K> {
  const out: CodeTermTable<K> = new Map();
  for (const [w, list] of Object.entries(file.terms)) {
    const best = list[0]?.[1] ?? 1;
    const byKey = new Map<K, number>();
    for (const [form, p] of list) {
      const k = key(stem(form));
      byKey.set(k, Math.max(byKey.get(k) ?? 0, p / best));
    }
    out.set(key(w), [...byKey]);
  }
  return out;
}

let shipped: CodeTermFile | null = null;

/** The shipped table, keyed by `key` of the stems (read and built once per key function). */
export function codeTermTable<K>(key: (stem: string) => K): CodeTermTable<K> {
  let t = cache.get(key) as CodeTermTable<K> | undefined;
  if (!t) {
    shipped ??= JSON.parse(readFileSync(FILE, "utf8")) as CodeTermFile;
    t = tableFrom(shipped, key);
    cache.set(key, t as CodeTermTable<unknown>);
  }
  return t;
}

/**
 * How much of the query the text has, each query term by its weight (IDF): a term counts 1 where the
 * text has it, else its best translation the text has (relative p) × `translated`. 0–1.
 */
export function translationScore<K>(
  table: CodeTermTable<K>,
  query: readonly { term: K; weight: number }[],
  text: ReadonlySet<K>,
  translated = 1,
): number {
  let total = 0;
  let got = 0;
  for (const { term, weight } of query) {
    total += weight;
    if (text.has(term)) {
      got += weight;
      continue;
    }
    let best = 0;
    for (const [c, p] of table.get(term) ?? []) if (p > best && text.has(c)) best = p;
    got += weight * translated * best;
  }
  return total > 0 ? got / total : 0;
}
