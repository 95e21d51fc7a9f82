/**
 * Text as UltraRAG's BM25 backend (bm25s) sees it, so LanceDB's full-text index scores the same words:
 * lower-cased runs of two or more word characters (`(?u)\b\w\w+\b`), English stop words dropped, no
 * stemming. Chinese (`lang: zh…`) or `tokenizer: character` → one token per character (upstream uses
 * jieba for Chinese, which has no JavaScript port here; per-character is upstream's own fallback).
 * The tokens are written space-separated into the index's search text and the queries.
 */

// Common English function words (our own list; bm25s removes a similar set).
const STOPWORDS = new Set(
  (
    "a about above after again against all am an and any are as at be because been before being below between both " +
    "but by can could did do does doing down during each few for from further had has have having he her here hers " +
    "herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on " +
    "once only or other our ours ourselves out over own same she should so some such than that the their theirs them " +
    "themselves then there these they this those through to too under until up very was we were what when where which " +
    "while who whom why will with would you your yours yourself yourselves"
  ).split(" "),
);

const CHINESE = new Set(["zh", "zh-cn", "zh_cn", "cn", "chinese", "zh-hans", "zh-tw", "zh_tw"]);

export interface Bm25Tokenizer {
  kind: "words" | "characters";
  tokens(text: string): string[];
}

export function bm25Tokenizer(lang: unknown, tokenizer: unknown): Bm25Tokenizer {
  const perChar =
    tokenizer === "character" ||
    tokenizer === "char" ||
    tokenizer === "jieba" ||
    ((tokenizer === "auto" || tokenizer === undefined) && typeof lang === "string" && CHINESE.has(lang.toLowerCase()));
  if (perChar)
    return {
      kind: "characters",
      tokens: (text) => [...text.toLowerCase()].filter((c) => /[\p{L}\p{N}]/u.test(c)),
    };
  const english = typeof lang !== "string" || lang.toLowerCase().startsWith("en");
  return {
    kind: "words",
    tokens: (text) =>
      (text.toLowerCase().match(/[\p{L}\p{N}_]{2,}/gu) ?? []).filter((t) => !(english && STOPWORDS.has(t))),
  };
}
