/**
 * Retrieval quality and speed (issues 4 and 18), on data nobody here wrote:
 *  - three quality sets (bench/search/quality.ts): Cranfield (nDCG@10, MAP, Recall@100), a
 *    CodeSearchNet-style JavaScript set from node_modules and one from Python's standard library
 *    (MRR@10, Recall@10) — each for fulltext, vector and hybrid through the production path, beside a
 *    standard BM25 (bench/search/bm25.ts) and, on the code sets, ripgrep; every figure over all
 *    queries and over the development and test halves (settings are tuned on the development halves);
 *  - p50/p95 latency per mode on the JavaScript index (~2.5k chunks) and on a 250k-chunk table built
 *    by replicating its chunks with perturbation (bench/search/large-table.ts), the large table's
 *    build rate, and the ANN index's recall@10 against exact search on the same table.
 * Progress goes to stderr. BENCH_SEARCH_ROWS overrides the large size; BENCH_SEARCH_LARGE=0 skips it
 * (quality only, a few minutes).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { embedderForFullBuild } from "../server/retrieval/embed/for-build.ts";
import { embeddingText, embedRows } from "../server/retrieval/embed/embed-rows.ts";
import { LocalEmbedder } from "../server/retrieval/embed/local.ts";
import { FUSION } from "../server/retrieval/fusion.ts";
import { search, type SearchOptions } from "../server/retrieval/search.ts";
import {
  connect,
  createIndexCache,
  openChunkIndex,
  replaceIndex,
  type ChunkIndex,
  type ChunkRow,
  type Store,
} from "../server/retrieval/store/index.ts";
import { summarize } from "./_stats.ts";
import { baseChunks, replicate } from "./search/large-table.ts";
import {
  bm25Baseline,
  codeSets,
  cranfieldSet,
  indexSet,
  MODES,
  questionSets,
  rankSet,
  score,
  type Figures,
  type QualitySet,
} from "./search/quality.ts";
import { mean } from "./search/metrics.ts";
import { ripgrepRank } from "./search/ripgrep.ts";
import { nonsenseQueries } from "./search/question-set.ts";
import { noGoodMatch } from "../server/shared/search-match.ts";

const CRANFIELD_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../shared/data/cranfield");
const CODE_QUERIES = 400;
const LARGE_ROWS = Number(process.env.BENCH_SEARCH_ROWS ?? 250_000);
const RUN_LARGE = process.env.BENCH_SEARCH_LARGE !== "0";
const LATENCY_QUERIES = 200;
const RECALL_QUERIES = 200;

const started = performance.now();
const progress = (msg: string) =>
  process.stderr.write(`[search ${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${msg}\n`);
const r4 = (n: number) => Math.round(n * 10_000) / 10_000;

async function quality(store: Store, set: QualitySet, root: string) {
  progress(`${set.name}: index and evaluate`);
  const { built, index } = await indexSet(store, set, root);
  const out: Record<string, unknown> = { ...set.source, chunks: built.rows, buildMs: built.ms };
  for (const mode of MODES) out[mode] = score(set, await rankSet(index, set, mode));
  out.bm25 = bm25Baseline(set);
  if (set.kind === "code") out.ripgrep = ripgrepQuality(set, root);
  out.noGoodMatch = await noGoodMatchFigures(index, set);
  return { figures: out, index };
}

/**
 * The "no good match" decision (hybrid, as the search boxes ask: 10 hits) on the nonsense queries
 * against this set's index and on the set's real queries, per half (nonsense queries split by
 * position too; the threshold was fitted on the development halves): recall = nonsense queries
 * called "no good match", precision = of the queries called so, the nonsense ones, and the real
 * queries wrongly called so.
 */
async function noGoodMatchFigures(index: ChunkIndex, set: QualitySet) {
  const nonsense = nonsenseQueries().map((text, i) => ({ text, half: i % 2 === 0 ? "dev" : "test" }));
  const flagged = async (text: string) => noGoodMatch(await search(index, text, { mode: "hybrid", k: 10 }));
  const nonsenseFlags = await Promise.all(
    nonsense.map(async (q) => ({ half: q.half, flagged: await flagged(q.text) })),
  );
  const realFlags: { half: string; flagged: boolean }[] = [];
  for (const q of set.queries) realFlags.push({ half: q.half, flagged: await flagged(q.text) });
  const figures = (keep: (half: string) => boolean) => {
    const n = nonsenseFlags.filter((f) => keep(f.half));
    const r = realFlags.filter((f) => keep(f.half));
    const nonsenseCalled = n.filter((f) => f.flagged).length;
    const realCalled = r.filter((f) => f.flagged).length;
    return {
      nonsenseRecall: r4(nonsenseCalled / n.length),
      precision: r4(nonsenseCalled + realCalled ? nonsenseCalled / (nonsenseCalled + realCalled) : 1),
      realCalledNoMatch: r4(realCalled / r.length),
      nonsense: n.length,
      real: r.length,
    };
  };
  return { all: figures(() => true), dev: figures((h) => h === "dev"), test: figures((h) => h === "test") };
}

function ripgrepQuality(set: QualitySet, root: string) {
  const t = performance.now();
  const ranked = set.queries.map((q) => ripgrepRank(root, q.text, 10));
  return { ...score(set, ranked), msPerQuery: Math.round(((performance.now() - t) / set.queries.length) * 10) / 10 };
}

async function latency(index: ChunkIndex, queries: string[], options: SearchOptions = {}) {
  const out: Record<string, unknown> = {};
  for (const mode of MODES) {
    for (const q of queries.slice(0, 10)) await search(index, q, { ...options, mode }); // warm caches
    const samples: number[] = [];
    for (const q of queries) {
      const t = performance.now();
      await search(index, q, { ...options, mode, k: 10 });
      samples.push(performance.now() - t);
    }
    out[mode] = summarize(samples);
  }
  return out;
}

async function largeTable(store: Store, set: QualitySet) {
  progress(`large table: replicating ${LARGE_ROWS.toLocaleString("en")} chunks`);
  let t = performance.now();
  const base = await baseChunks(set);
  const chunks = [...replicate(base, LARGE_ROWS)];
  const replicateMs = Math.round(performance.now() - t);
  // The build as indexSnapshot does it once chunks exist: fit the embedder, embed, write, index.
  t = performance.now();
  const { embedder } = embedderForFullBuild(new LocalEmbedder(), chunks.map(embeddingText), 0);
  const fitMs = Math.round(performance.now() - t);
  const rows: ChunkRow[] = await embedRows(embedder, chunks, embeddingText);
  const prepareMs = Math.round(performance.now() - t);
  progress(
    `large table: ${rows.length.toLocaleString("en")} rows fitted in ${(fitMs / 1000).toFixed(1)} s, embedded in ${((prepareMs - fitMs) / 1000).toFixed(1)} s; writing + indexing`,
  );
  t = performance.now();
  const write = await replaceIndex(store, "large", {
    embedder: embedder.record(),
    embedderState: (embedder as LocalEmbedder).state(),
    rows,
  });
  const buildMs = Math.round(performance.now() - t);
  progress(
    `large table: built in ${(buildMs / 1000).toFixed(1)} s (vector index: ${write.plan.vector}); timing queries`,
  );
  const queries = set.queries.map((q) => q.text);
  // What the app's search box pays: the first request opens the index (catalog, table, stats) and
  // rebuilds the query embedder from the stored IDF; later ones reuse it through the index cache,
  // which still checks the catalog's version on every request.
  const cache = createIndexCache(store.uri);
  let t0 = performance.now();
  await cache.use("large", (i) => search(i!, queries[0]!, { mode: "hybrid" }));
  const coldFirstRequestMs = Math.round(performance.now() - t0);
  const cached: number[] = [];
  for (const q of queries.slice(0, LATENCY_QUERIES)) {
    t0 = performance.now();
    await cache.use("large", (i) => search(i!, q, { mode: "hybrid" }));
    cached.push(performance.now() - t0);
  }
  await cache.close();
  const appPath = { coldFirstRequestMs, cachedHybridMs: summarize(cached) };

  const index = (await openChunkIndex(store, "large"))!;
  const lat = await latency(index, queries.slice(0, LATENCY_QUERIES));

  // ANN recall@10 against exact search of the same table. A returned row counts when its true score
  // reaches the exact 10th score (ties at the cut-off are interchangeable).
  progress("large table: ANN recall against exact search");
  const vectorOf = new Map(rows.map((r) => [r.id, r.vector]));
  const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
  const recalls: number[] = [];
  const exactMs: number[] = [];
  for (const q of queries.slice(0, RECALL_QUERIES)) {
    const v = (await (embedder as LocalEmbedder).embedQueries([q]))[0]!;
    const ann = await index.vectorSearch(v, 10);
    const te = performance.now();
    const exact = await index.vectorSearch(v, 10, undefined, { exact: true });
    exactMs.push(performance.now() - te);
    const cut = exact.length ? dot(vectorOf.get(exact[exact.length - 1]!.id)!, v) - 1e-6 : -Infinity;
    recalls.push(exact.length ? ann.filter((h) => dot(vectorOf.get(h.id)!, v) >= cut).length / exact.length : 1);
  }
  index.close();
  return {
    rows: write.rows,
    vectorIndex: write.plan.vector,
    replicateMs,
    fitMs,
    prepareMs,
    buildMs,
    /** Fit + embed + write + index, per second (what an index build costs once chunks exist). */
    buildChunksPerSecond: Math.round(write.rows / ((prepareMs + buildMs) / 1000)),
    buildTimings: write.timings,
    latencyMs: lat,
    appPath,
    exactVectorLatencyMs: summarize(exactMs),
    annRecall10: r4(mean(recalls)),
    annRecallQueries: recalls.length,
  };
}

export default async function searchBench() {
  const dir = mkdtempSync(path.join(tmpdir(), "argus-bench-search-"));
  const loadAtStart = loadavg().map((l) => Math.round(l * 10) / 10);
  const store = await connect(path.join(dir, "lancedb"));
  try {
    progress("building the sets");
    const sets = [cranfieldSet(CRANFIELD_DIR), ...(await codeSets(CODE_QUERIES)), ...(await questionSets())];
    const figures: Record<string, unknown> = {};
    let jsIndex: ChunkIndex | null = null;
    for (const set of sets) {
      const q = await quality(store, set, path.join(dir, set.name));
      figures[set.name] = q.figures;
      if (set.name === "codeJs") jsIndex = q.index;
      else q.index.close();
    }
    const js = sets.find((x) => x.name === "codeJs")!;
    progress("latency on the JavaScript index");
    const smallLatency = await latency(jsIndex!, js.queries.map((q) => q.text).slice(0, LATENCY_QUERIES));
    jsIndex!.close();
    const large = RUN_LARGE ? await largeTable(store, js) : null;

    const metric = (name: string) => (name === "cranfield" ? "ndcg10" : "mrr10");
    const hybridBest = Object.fromEntries(
      sets.map((set) => {
        const f = figures[set.name] as Record<string, Figures>;
        const out: Record<string, boolean> = {};
        for (const half of ["all", "dev", "test"] as const)
          out[half] = Object.keys(f.hybrid![half]).every(
            (m) => f.hybrid![half][m]! >= Math.max(f.fulltext![half][m]!, f.vector![half][m]!, f.bm25![half][m]!),
          );
        return [set.name, out];
      }),
    );
    const cranHybrid = (figures.cranfield as Record<string, Figures>).hybrid!;
    const hybridLatency = large ? (large.latencyMs.hybrid as { p50: number }).p50 : null;
    return {
      // Latencies depend on what else runs: 1/5/15-minute load averages on this 2-core machine.
      loadAverage: { start: loadAtStart, end: loadavg().map((l) => Math.round(l * 10) / 10) },
      split: "queries at even positions are the development half (settings tuned on it), odd the test half",
      hybridFusion: FUSION,
      ...figures,
      latencySmall: { chunks: (figures.codeJs as { chunks: number }).chunks, ms: smallLatency },
      large,
      targets: {
        cranfieldHybridNdcg10: {
          all: cranHybrid.all.ndcg10,
          test: cranHybrid.test.ndcg10,
          target: 0.4,
          met: cranHybrid.all.ndcg10! >= 0.4,
        },
        noGoodMatchTest: Object.fromEntries(
          sets.map((set) => {
            const t = (
              figures[set.name] as { noGoodMatch: { test: { nonsenseRecall: number; realCalledNoMatch: number } } }
            ).noGoodMatch.test;
            return [
              set.name,
              {
                ...t,
                target: "nonsense ≥ 0.9, real ≤ 0.05",
                met: t.nonsenseRecall >= 0.9 && t.realCalledNoMatch <= 0.05,
              },
            ];
          }),
        ),
        questionsPythonHybridMrr10Test: (() => {
          const f = figures.questionsPython as Record<string, Figures>;
          const h = f.hybrid!.test.mrr10!;
          return { value: h, vector: f.vector!.test.mrr10, fulltext: f.fulltext!.test.mrr10, bm25: f.bm25!.test.mrr10 };
        })(),
        hybridAtLeastBestLeg: {
          bySet: hybridBest,
          metric: "every metric of the set, against full text, vector and BM25",
          primary: Object.fromEntries(sets.map((s) => [s.name, metric(s.name)])),
        },
        ...(large
          ? {
              hybridP50At250k: { ms: hybridLatency, target: 15, met: hybridLatency! <= 15 },
              annRecall10: { value: large.annRecall10, target: 0.95, met: large.annRecall10 >= 0.95 },
              buildChunksPerSecond: {
                value: large.buildChunksPerSecond,
                target: 2000,
                met: large.buildChunksPerSecond >= 2000,
              },
            }
          : {}),
      },
    };
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
    progress("done");
  }
}
