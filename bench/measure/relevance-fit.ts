/**
 * Tuning on the DEVELOPMENT halves, from relevance-dump.ts's output (per set and query: both legs'
 * rankings and each candidate's relevance features):
 *  1. fusion: MRR@10 per code set for the legs, the fixed weights and per-query adaptive weights
 *     (fusion.ts adaptiveWeights) at several factors — the numbers in fusion.ts's comment;
 *  2. the relevance model (relevance.ts MATCH_MODEL): per profile, a logistic regression telling
 *     the gold hits of real queries from the hits of nonsense queries (classes weighted equally),
 *     and STRONG_AT, the highest relevance that calls at most 4% of any set's real development
 *     queries "no good match" (their best hit below it).
 * Then the "no good match" decision on both halves per set — the test half is only reported.
 *
 *   node --import tsx bench/measure/relevance-dump.ts /tmp/relevance-dump
 *   node --import tsx bench/measure/relevance-fit.ts /tmp/relevance-dump
 */
import { readdirSync, readFileSync } from "node:fs";
import { FUSION, fuse, adaptiveWeights, rerankByRelevance, type Scored } from "../../server/retrieval/fusion.ts";
import { modelInputs, relevanceOf, type RelevanceProfile } from "../../server/retrieval/relevance.ts";

type List = [string, number][];
interface Row {
  half: "dev" | "test";
  kind: "real" | "nonsense";
  gold: string[];
  query: { terms: number; known: number };
  text: List;
  textX: List;
  vec: List;
  vecC: List;
  feats: Record<string, { doc: string; coverage: number; matched: number; cosine: number }>;
}
interface Dump {
  name: string;
  kind: "prose" | "code";
  rows: Row[];
}

const dir = process.argv[2] ?? "/tmp/relevance-dump";
const sets: Dump[] = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .map((f) => JSON.parse(readFileSync(`${dir}/${f}`, "utf8")) as Dump);
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const scored = (l: List): Scored[] => l.map(([key, score]) => ({ key, score }));

/** The legs as production searches them: over code the question words dropped and full text expanded. */
const legsOf = (r: Row, kind: Dump["kind"]) =>
  kind === "prose" ? { text: scored(r.text), vec: scored(r.vec) } : { text: scored(r.textX), vec: scored(r.vecC) };

/** The hit's relevance as search.ts computes it (the dump's features, this model). */
function relevanceIn(r: Row, kind: Dump["kind"], key: string): number {
  const f = r.feats[key];
  if (!f) return 0;
  return relevanceOf(kind as RelevanceProfile, { ...f, terms: r.query.terms, known: r.query.known });
}

function ranking(
  r: Row,
  kind: Dump["kind"],
  adaptive: number | null,
  rerank: { depth: number; weight: number } | null = null,
): string[] {
  const base = kind === "prose" ? FUSION.prose : FUSION.code;
  const settings = { ...base, adaptive };
  const { text, vec } = legsOf(r, kind);
  const t = text.slice(0, settings.depth);
  const v = vec.slice(0, settings.depth);
  const fused = fuse(t, v, adaptiveWeights(t, v, settings), settings.depth);
  if (!rerank) return fused.map((f) => f.key);
  const page = fused.slice(0, rerank.depth);
  const reranked = rerankByRelevance(
    page,
    page.map((f) => relevanceIn(r, kind, f.key)),
    rerank.weight,
  );
  return [...reranked.map((x) => x.hit), ...fused.slice(rerank.depth)].map((f) => f.key);
}

function docsOf(r: Row, keys: readonly string[], n = 10): string[] {
  const out: string[] = [];
  for (const k of keys) {
    const d = r.feats[k]?.doc ?? `?${k}`;
    if (!out.includes(d)) out.push(d);
    if (out.length >= n) break;
  }
  return out;
}

const reciprocalRank = (r: Row, docs: readonly string[]) => {
  const i = docs.findIndex((d) => r.gold.includes(d));
  return i < 0 ? 0 : 1 / (i + 1);
};

// 1. Fusion on the development halves.
const code = sets.filter((s) => s.kind === "code");
const HALF = (process.env.HALF ?? "dev") as "dev" | "test";
console.log(`MRR@10, ${HALF === "dev" ? "development" : "test (reported only, never tuned on)"} halves`);
const variants: [string, (r: Row, kind: Dump["kind"]) => string[]][] = [
  ["full text (expanded)", (r) => r.textX.slice(0, 30).map((x) => x[0])],
  ["vector", (r) => r.vecC.slice(0, 30).map((x) => x[0])],
  ["fixed weights", (r, kind) => ranking(r, kind, null)],
  ...[1, 2, 4, 8].map((a): [string, (r: Row, kind: Dump["kind"]) => string[]] => [
    `adaptive ${a}`,
    (r, kind) => ranking(r, kind, a),
  ]),
  // The page re-ranked by the fused score (best 1) + weight × each hit's relevance (search.ts).
  ...[0.5, 1, 2, 4].flatMap((weight) =>
    [10, 20].map((depth): [string, (r: Row, kind: Dump["kind"]) => string[]] => [
      `adaptive 4, rerank ${depth} × ${weight}`,
      (r, kind) => ranking(r, kind, 4, { depth, weight }),
    ]),
  ),
];
for (const [name, rank] of variants) {
  const per = code.map((s) =>
    mean(
      s.rows
        .filter((r) => r.kind === "real" && r.half === HALF)
        .map((r) => reciprocalRank(r, docsOf(r, rank(r, s.kind)))),
    ),
  );
  console.log(
    `  ${name.padEnd(22)} ${per.map((m, i) => `${code[i]!.name} ${m.toFixed(4)}`).join("  ")}  mean ${mean(per).toFixed(4)}`,
  );
}

// 2. The relevance model.
// relevance.ts modelInputs: knownCoverage, the query's known share counted only as far as the hit has
// the query's words; knownTwoTerms, counted only when the hit has two of the query's terms.
// Prose leaves knownTwoTerms out: on Cranfield's development half it called more real queries "no
// good match" (4 of 113 instead of 3) for no nonsense query more.
const MISS_RATE = Number(process.env.MISS_RATE ?? 0.03);
const FEATURES = {
  code: ["coverage", "matched", "cosine", "knownCoverage", "knownTwoTerms"],
  prose: ["coverage", "matched", "cosine", "knownCoverage"],
} as const;

function hitRows(r: Row, kind: Dump["kind"]): { x: number[]; gold: boolean }[] {
  const out: { x: number[]; gold: boolean }[] = [];
  const seen = new Set<string>();
  for (const k of ranking(r, kind, kind === "prose" ? null : FUSION.code.adaptive)) {
    const f = r.feats[k];
    if (!f || seen.has(f.doc)) continue;
    seen.add(f.doc);
    const x = modelInputs({ ...f, terms: r.query.terms, known: r.query.known });
    out.push({ x: FEATURES[kind].map((n) => x[n]), gold: r.gold.includes(f.doc) });
    if (out.length >= 10) break;
  }
  return out;
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
const predict = (w: readonly number[], x: readonly number[]) =>
  sigmoid(w[x.length]! + x.reduce((s, v, j) => s + v * w[j]!, 0));

/** Logistic regression by gradient descent, both classes weighted equally, a little L2. */
function fit(X: number[][], Y: number[]): number[] {
  const d = X[0]!.length;
  const w = new Array<number>(d + 1).fill(0);
  const pos = Y.filter(Boolean).length;
  const weightOf = (y: number) => (y ? Y.length / (2 * pos) : Y.length / (2 * (Y.length - pos)));
  for (let it = 0; it < 3000; it++) {
    const g = new Array<number>(d + 1).fill(0);
    X.forEach((x, i) => {
      const e = (predict(w, x) - Y[i]!) * weightOf(Y[i]!);
      x.forEach((v, j) => (g[j]! += e * v));
      g[d]! += e;
    });
    for (let j = 0; j <= d; j++) w[j]! -= g[j]! / X.length + (j < d ? 1e-3 * w[j]! : 0);
  }
  return w;
}

for (const profile of ["code", "prose"] as const) {
  const group = sets.filter((s) => s.kind === profile);
  if (!group.length) continue;
  const X: number[][] = [];
  const Y: number[] = [];
  for (const s of group)
    for (const r of s.rows.filter((r) => r.half === "dev"))
      for (const h of hitRows(r, s.kind)) {
        if (r.kind === "nonsense" || h.gold) {
          X.push(h.x);
          Y.push(r.kind === "real" ? 1 : 0);
        }
      }
  const w = fit(X, Y);
  const best = (s: Dump, r: Row) => Math.max(0, ...hitRows(r, s.kind).map((h) => predict(w, h.x)));
  // The highest threshold that calls at most MISS_RATE of any development set's real queries "no good
  // match" (pooled, the large sets would hide a small one's misses).
  const strongAt = Math.min(
    ...group.map((s) => {
      const real = s.rows
        .filter((r) => r.half === "dev" && r.kind === "real")
        .map((r) => best(s, r))
        .sort((a, b) => a - b);
      return real[Math.floor(real.length * MISS_RATE)]!;
    }),
  );
  console.log(
    `\n${profile}: ${FEATURES[profile].map((f, i) => `${f} ${w[i]!.toFixed(3)}`).join(", ")}, bias ${w[FEATURES[profile].length]!.toFixed(3)}; STRONG_AT ${strongAt.toFixed(3)}`,
  );
  for (const half of ["dev", "test"] as const)
    for (const s of group) {
      const rows = s.rows.filter((r) => r.half === half);
      const called = (kind: Row["kind"]) => rows.filter((r) => r.kind === kind && best(s, r) < strongAt).length;
      const count = (kind: Row["kind"]) => rows.filter((r) => r.kind === kind).length;
      const [n, r] = [called("nonsense"), called("real")];
      console.log(
        `  ${half} ${s.name.padEnd(16)} nonsense → no good match ${n}/${count("nonsense")} (recall ${(n / count("nonsense")).toFixed(3)}), real → no good match ${r}/${count("real")} (${((r / count("real")) * 100).toFixed(1)}%), precision ${(n / Math.max(1, n + r)).toFixed(3)}`,
      );
    }
}
