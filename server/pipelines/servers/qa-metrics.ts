/**
 * UltraRAG's answer metrics (spec §5.7), per sample, over a prediction and its list of golden answers.
 * `normalizeText` applies the steps in upstream's order — the order changes results (punctuation
 * becomes a space before articles are removed, so "the-end" loses "the"). ROUGE tokenizes the way
 * rouge_score does (lower-case, runs of [a-z0-9], Porter-stemmed when longer than 3 characters) and
 * reports the F-measure, best over the golden answers.
 */
import { porterStemToken as porterStem } from "../../retrieval/text/porter.ts";

// string.punctuation plus the quote marks upstream adds.
const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~‘’´]/g;
// Python's \b is Unicode-aware (é is a word character); JavaScript's is not, so spell it out.
const ARTICLES = /(?<![\p{L}\p{N}_])(?:a|an|the)(?![\p{L}\p{N}_])/gu;

export function normalizeText(value: unknown): string {
  let t = typeof value === "string" ? value : String(value);
  if (t === "True") t = "yes";
  else if (t === "False") t = "no";
  t = t.replace(/_/g, " ").toLowerCase().replace(PUNCTUATION, " ").replace(ARTICLES, " ");
  return t.split(/\s+/).filter(Boolean).join(" ").trim();
}

const tokens = (s: string) => (s === "" ? [] : s.split(" "));

export type MetricFn = (pred: unknown, golden: readonly unknown[]) => number;

const acc: MetricFn = (p, gt) => {
  const np = normalizeText(p);
  if (np === "") return 0;
  return gt.some((g) => np.includes(normalizeText(g))) ? 1 : 0;
};

const em: MetricFn = (p, gt) => {
  const np = normalizeText(p);
  return gt.some((g) => normalizeText(g) === np) ? 1 : 0;
};

const coverem: MetricFn = (p, gt) => {
  const have = new Set(tokens(normalizeText(p)));
  return gt.some((g) => tokens(normalizeText(g)).every((t) => have.has(t))) ? 1 : 0;
};

const stringem: MetricFn = (p, gt) => {
  if (gt.length === 0) return 0;
  const np = normalizeText(p);
  return gt.filter((g) => normalizeText(g) === np).length / gt.length;
};

function counts(list: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const x of list) m.set(x, (m.get(x) ?? 0) + 1);
  return m;
}

function overlap(a: readonly string[], b: readonly string[]): number {
  const cb = counts(b);
  let n = 0;
  for (const [x, c] of counts(a)) n += Math.min(c, cb.get(x) ?? 0);
  return n;
}

const fMeasure = (common: number, predLen: number, goldLen: number) => {
  if (common === 0 || predLen === 0 || goldLen === 0) return 0;
  const precision = common / predLen;
  const recall = common / goldLen;
  return (2 * precision * recall) / (precision + recall);
};

const f1: MetricFn = (p, gt) => {
  const pt = tokens(normalizeText(p));
  let best = 0;
  for (const g of gt) {
    const gtoks = tokens(normalizeText(g));
    best = Math.max(best, fMeasure(overlap(pt, gtoks), pt.length, gtoks.length));
  }
  return best;
};

/** rouge_score's tokenizer with the stemmer on. */
export function rougeTokens(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .split(/\s+/)
    .filter(Boolean)
    .map((t) => (t.length > 3 ? porterStem(t) : t))
    .filter((t) => /^[a-z0-9]+$/.test(t));
}

const ngrams = (toks: readonly string[], n: number) =>
  Array.from({ length: Math.max(0, toks.length - n + 1) }, (_, i) => toks.slice(i, i + n).join(" "));

function lcsLength(a: readonly string[], b: readonly string[]): number {
  let prev = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const cur = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++)
      cur[j] = a[i - 1] === b[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    prev = cur;
  }
  return prev[b.length]!;
}

/** rouge_score's F-measure: 0 when precision + recall is 0. */
const rougeF = (common: number, predLen: number, targetLen: number) => {
  const precision = predLen ? common / predLen : 0;
  const recall = targetLen ? common / targetLen : 0;
  return precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
};

const rougeN =
  (n: number): MetricFn =>
  (p, gt) => {
    const pred = ngrams(rougeTokens(normalizeText(p)), n);
    let best = 0;
    for (const g of gt) {
      const target = ngrams(rougeTokens(normalizeText(g)), n);
      best = Math.max(best, rougeF(overlap(pred, target), pred.length, target.length));
    }
    return best;
  };

const rougeL: MetricFn = (p, gt) => {
  const pred = rougeTokens(normalizeText(p));
  let best = 0;
  for (const g of gt) {
    const target = rougeTokens(normalizeText(g));
    best = Math.max(best, rougeF(lcsLength(pred, target), pred.length, target.length));
  }
  return best;
};

export const QA_METRICS: Readonly<Record<string, MetricFn>> = {
  acc,
  em,
  coverem,
  stringem,
  f1,
  "rouge-1": rougeN(1),
  "rouge-2": rougeN(2),
  "rouge-l": rougeL,
};
