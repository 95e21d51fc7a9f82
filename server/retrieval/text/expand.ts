/**
 * Identifier-aware query expansion for full text (search.ts): people ask in words, code names things
 * in compounds and in its own vocabulary.
 *  - Words → compounds: adjacent query words glued the way code glues them (`session cookie` →
 *    `sessioncookie`, which is how the index holds `sessionCookie` and `session_cookie`'s compound
 *    form; split-identifiers.ts keeps compounds lower-cased).
 *  - Compounds → words happen already: the query is identifier-split like the index
 *    (`parseConfig` → `parseconfig parse config`).
 *  - Code synonyms (CODE_SYNONYMS): `cookie` also asks for `session`, `hash` for `digest`/`bcrypt`,
 *    `folder` for `dir`/`directory` … — the words a library would use for what a user asks.
 * Expansion only adds words: BM25 still ranks a chunk with the user's own words first, since those
 * match more of the query. The vector leg is not expanded (its latent segment already relates
 * words that share contexts in the corpus).
 */
import { STOP_WORDS, stem } from "./terms.ts";

/**
 * Groups of words code uses for one thing. A query word in a group (compared by stem) adds the
 * group's other words. Kept small and specific: a broad group (`get` ↔ `fetch` ↔ `read`) would pull
 * in half of any code base.
 */
export const CODE_SYNONYMS: readonly (readonly string[])[] = [
  // `express-session` is indexed as its two words, so `session` finds it.
  ["cookie", "session"],
  ["hash", "digest", "bcrypt", "sha256", "checksum"],
  ["password", "passwd", "credential"],
  ["folder", "directory", "dir"],
  ["delete", "remove", "unlink", "rmtree"],
  ["temporary", "temp", "tmp"],
  ["config", "configuration", "settings"],
  ["login", "authenticate", "auth", "signin"],
  ["url", "uri", "href"],
  ["serialize", "stringify", "dump"],
  ["deserialize", "unmarshal"],
  ["compress", "gzip", "deflate", "zlib"],
  ["archive", "zip", "tar"],
  ["environment", "env"],
  ["argument", "args", "argv"],
  ["parameter", "param", "params"],
  ["websocket", "ws"],
  ["template", "view", "render"],
  ["timeout", "deadline"],
  ["random", "rand", "shuffle"],
  ["encrypt", "cipher"],
  ["token", "jwt"],
  ["sign", "hmac", "signature"],
  ["thread", "worker"],
  ["subprocess", "spawn", "exec"],
  ["redirect", "location"],
  ["millisecond", "ms"],
  ["regular", "regex", "regexp"],
  ["mime", "contenttype"],
];

const groupsByStem = new Map<string, string[]>();
for (const group of CODE_SYNONYMS)
  for (const w of group) {
    const s = stem(w.toLowerCase());
    groupsByStem.set(s, [...new Set([...(groupsByStem.get(s) ?? []), ...group])]);
  }

/** At most this many words are added (a pasted snippet is not expanded: it names things already). */
const MAX_ADDED = 12;
const MAX_EXPANDED_WORDS = 16;

/**
 * The words to add to a query's full-text words (`words`: already split and lower-cased, stop
 * words in), or [] for long queries. Each added word once, none already in the query.
 */
export function expansionWords(words: readonly string[]): string[] {
  const plain = words.filter((w) => /^[\p{L}\p{N}]+$/u.test(w) && !STOP_WORDS.has(w));
  if (!plain.length || words.length > MAX_EXPANDED_WORDS) return [];
  const have = new Set(words);
  const haveStems = new Set(plain.map((w) => stem(w)));
  const out: string[] = [];
  const add = (w: string) => {
    if (out.length < MAX_ADDED && !have.has(w) && !haveStems.has(stem(w))) {
      have.add(w);
      out.push(w);
    }
  };
  for (let i = 0; i + 1 < plain.length; i++)
    if (plain[i]!.length > 1 && plain[i + 1]!.length > 1) add(plain[i]! + plain[i + 1]!);
  for (const w of plain) for (const syn of groupsByStem.get(stem(w)) ?? []) add(syn);
  return out;
}

/**
 * Words that frame a question rather than say what it is about ("how do I …", "where is …", "… in
 * python"). Searched for, they match every docstring that says "how" or "do"; so a query that has
 * other words is searched without them (both legs).
 */
const QUESTION_WORDS = new Set(
  "how do does did doing i me my we our us you your can could should would where what which who whom why is are was were be been am there here way ways best get getting want need please python javascript js typescript py".split(
    " ",
  ),
);

const bare = (w: string) => w.toLowerCase().replace(/[^\p{L}\p{N}]/gu, "");

/** The query's words without its question framing; the query itself when nothing but common words
 * would be left ("where is it"). */
export function withoutQuestionWords(query: string): string {
  const words = query.split(/\s+/).filter(Boolean);
  const kept = words.filter((w) => !QUESTION_WORDS.has(bare(w)));
  const meaningful = kept.some((w) => bare(w) && !STOP_WORDS.has(bare(w)));
  return meaningful && kept.length < words.length ? kept.join(" ") : query;
}
