/**
 * Where a large index build and a large-table query spend their time (issue 18's speed targets):
 * the bench's 250k-chunk table (bench/search/large-table.ts), each build phase timed in wall and
 * process CPU time (LanceDB's Rust threads included), then each part of a hybrid query alone.
 *
 *   node --import tsx bench/measure/large-build.ts [rows]         # build into a temp dir, then query
 *   MEASURE_DIR=/tmp/x node --import tsx bench/measure/large-build.ts   # keep the table there; a second
 *                                                                       # run only queries it
 */
import { existsSync, mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { embedderForFullBuild } from "../../server/retrieval/embed/for-build.ts";
import { embeddingText, embedRows } from "../../server/retrieval/embed/embed-rows.ts";
import { embedderForIndex } from "../../server/retrieval/embed/from-record.ts";
import { LocalEmbedder } from "../../server/retrieval/embed/local.ts";
import { search } from "../../server/retrieval/search.ts";
import { connect, openChunkIndex, replaceIndex } from "../../server/retrieval/store/index.ts";
import { summarize } from "../_stats.ts";
import { codeSets } from "../search/quality.ts";
import { baseChunks, replicate } from "../search/large-table.ts";

const rows = Number(process.argv[2] ?? 250_000);
const dir = process.env.MEASURE_DIR ?? mkdtempSync(path.join(tmpdir(), "argus-measure-large-"));
const uri = path.join(dir, "lancedb");
const fresh = !existsSync(uri);
const log = (msg: string) => process.stderr.write(`${msg}\n`);

async function phase<T>(name: string, fn: () => Promise<T> | T): Promise<T> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const out = await fn();
  const c = process.cpuUsage(c0);
  log(
    `${name.padEnd(28)} wall ${((performance.now() - t0) / 1000).toFixed(1).padStart(6)} s  cpu ${((c.user + c.system) / 1e6).toFixed(1).padStart(6)} s  load ${loadavg()[0]!.toFixed(1)}`,
  );
  return out;
}

const js = (await codeSets(400)).find((s) => s.name === "codeJs")!;
const queries = js.queries.map((q) => q.text).slice(0, 200);
const store = await connect(uri);
if (fresh) {
  const base = await baseChunks(js);
  const chunks = await phase("replicate", () => [...replicate(base, rows)]);
  const texts = await phase("embedding texts", () => chunks.map(embeddingText));
  const { embedder, state } = await phase("fit", () => embedderForFullBuild(new LocalEmbedder(), texts, 0));
  const built = await phase("embed", () => embedRows(embedder, chunks, embeddingText));
  const write = await phase("write + index", () =>
    replaceIndex(store, "large", { embedder: embedder.record(), embedderState: state, rows: built }),
  );
  log(`  ${JSON.stringify(write.timings)}`);
}
const index = (await openChunkIndex(store, "large"))!;
const embedder = embedderForIndex(index.embedder, index.embedderState);
const vectors = await embedder.embedQueries!(queries);
const words = queries.map((q) => q.toLowerCase());
async function timed(name: string, fn: (i: number) => Promise<unknown>) {
  for (let i = 0; i < 10; i++) await fn(i);
  const samples: number[] = [];
  const c0 = process.cpuUsage();
  for (let i = 0; i < queries.length; i++) {
    const t = performance.now();
    await fn(i);
    samples.push(performance.now() - t);
  }
  const c = process.cpuUsage(c0);
  const s = summarize(samples);
  log(
    `${name.padEnd(28)} p50 ${s.p50.toFixed(1).padStart(6)} ms  p95 ${s.p95.toFixed(1).padStart(6)} ms  cpu/query ${((c.user + c.system) / 1000 / queries.length).toFixed(1)} ms  load ${loadavg()[0]!.toFixed(1)}`,
  );
}
const depth = 30;
await timed("embed query", async (i) => embedder.embedQueries!([queries[i]!]));
await timed("rankVector 30", (i) => index.rankVector(vectors[i]!, depth));
await timed("rankFullText 30", (i) => index.rankFullText(words[i]!, depth));
await timed("both legs concurrently", (i) =>
  Promise.all([index.rankVector(vectors[i]!, depth), index.rankFullText(words[i]!, depth)]),
);
await timed("fetchHits 10", async (i) => index.fetchHits((await index.rankFullText(words[i]!, 10)).slice(0, 10)));
for (const mode of ["fulltext", "vector", "hybrid"] as const)
  await timed(`search() ${mode}`, (i) => search(index, queries[i]!, { mode, k: 10 }));
index.close();
store.close();
log(`table kept in ${dir}`);
