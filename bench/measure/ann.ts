/**
 * Which LanceDB vector index suits the hash embedder's vectors, outside the tests (slow, timing-based):
 *   node --import tsx bench/measure/ann.ts <rows> <index> [build options] [query settings]
 *   e.g. … 50000 hnsw_sq b:numPartitions=4 b:m=16 b:efConstruction=150 q:ef=300,nprobes=4,refine=5
 *        … 50000 ivf_flat b:numPartitions=224 q:nprobes=20 q:nprobes=40
 * index: exact | ivf_flat | ivf_pq | hnsw_sq | ivf_rq; DIST=dot|cosine|l2 (default cosine); DIMS (1024).
 * Rows: the bench's CodeSearchNet-style documents, chunked and replicated with perturbation to <rows>
 * (bench/search/large-table.ts); queries: its JSDoc sentences. Prints build time, p50/p95 at k=10, and
 * recall@10 against an exact scan (a row counts when its true score reaches the exact 10th).
 * The figures behind store/indexes.ts came from this script.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { connect, Index } from "@lancedb/lancedb";
import { buildCodeSet } from "../search/code-set.ts";
import { replicate, type BaseChunk } from "../search/large-table.ts";
import { chunkCode } from "../../server/retrieval/chunk/code.ts";
import { HashEmbedder } from "../../server/retrieval/embed/hash.ts";
import { splitIdentifiersInText } from "../../server/retrieval/split-identifiers.ts";
import { chunkSchema, toArrowTable } from "../../server/retrieval/store/schema.ts";

const rowsWanted = Number(process.argv[2] ?? 50_000);
const kind = process.argv[3] ?? "exact";
const args = process.argv.slice(4);
const DIST = (process.env.DIST ?? "cosine") as "dot" | "cosine" | "l2";
const DIMS = Number(process.env.DIMS ?? 1024);
const num = (pairs: string) =>
  Object.fromEntries(
    pairs
      .split(",")
      .map((kv) => kv.split("="))
      .map(([k, v]) => [k!, Number(v)]),
  );
const build = Object.assign({}, ...args.filter((a) => a.startsWith("b:")).map((a) => num(a.slice(2)))) as Record<
  string,
  number
>;
const settings = args.filter((a) => a.startsWith("q:")).map((a) => num(a.slice(2)));
if (!settings.length) settings.push({});

const set = await buildCodeSet(200);
const base: BaseChunk[] = [];
for (const d of set.docs) {
  for (const [i, c] of (await chunkCode({ path: d.id, language: "javascript", source: d.text })).entries()) {
    base.push({
      id: `${d.id}#${i}`,
      file: d.id,
      language: "javascript",
      startLine: c.startLine,
      endLine: c.endLine,
      symbolPath: c.symbolPath,
      symbolKinds: [],
      text: c.text,
      searchText: splitIdentifiersInText(c.text),
      contentHash: d.id,
    });
  }
}
const chunks = [...replicate(base, rowsWanted)];
const embedder = new HashEmbedder({ dims: DIMS }).fit(chunks.map((c) => c.text));
const vectors = chunks.map((c) => embedder.embedOne(c.text));
const dir = mkdtempSync(path.join(tmpdir(), "argus-measure-ann-"));
const db = await connect(dir);
const table = await db.createEmptyTable("t", chunkSchema(DIMS));
for (let i = 0; i < chunks.length; i += 2000)
  await table.add(
    toArrowTable(
      chunks.slice(i, i + 2000).map((c, j) => ({ ...c, vector: vectors[i + j]! })),
      DIMS,
    ),
  );
const rowOf = new Map(chunks.map((c, i) => [c.id, i]));
const queries = set.queries.map((q) => embedder.embedOne(q.query));
const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const truth: number[] = [];
for (const q of queries) {
  const top = await table
    .vectorSearch(q)
    .distanceType("dot")
    .bypassVectorIndex()
    .limit(10)
    .select(["id", "_distance"])
    .toArray();
  truth.push(1 - Number(top[top.length - 1]._distance) - 1e-6);
}
console.log(`${chunks.length} rows × ${DIMS} dims; ${queries.length} queries`);

if (kind !== "exact") {
  const t = performance.now();
  const config = { ivf_flat: Index.ivfFlat, ivf_pq: Index.ivfPq, hnsw_sq: Index.hnswSq, ivf_rq: Index.ivfRq }[
    kind as "ivf_flat"
  ]!({ distanceType: DIST, ...build });
  await table.createIndex("vector", { config });
  console.log(`${kind} ${JSON.stringify(build)} distance ${DIST}: build ${(performance.now() - t).toFixed(0)} ms`);
}
for (const s of settings) {
  const times: number[] = [];
  let recall = 0;
  for (const [qi, q] of queries.entries()) {
    let query = table
      .vectorSearch(q)
      .distanceType(kind === "exact" ? "dot" : DIST)
      .limit(10);
    if (s.nprobes) query = query.nprobes(s.nprobes);
    if (s.ef) query = query.ef(s.ef);
    if (s.refine) query = query.refineFactor(s.refine);
    const t = performance.now();
    const rows = await query.select(["id", "_distance"]).toArray();
    times.push(performance.now() - t);
    recall += rows.filter((r) => dot(vectors[rowOf.get(String(r.id))!]!, q) >= truth[qi]!).length / 10;
  }
  times.sort((a, b) => a - b);
  console.log(
    `${JSON.stringify(s)}: p50 ${times[times.length >> 1]!.toFixed(1)} ms, p95 ${times[Math.floor(times.length * 0.95)]!.toFixed(1)} ms, recall@10 ${(recall / queries.length).toFixed(3)}`,
  );
}
table.close();
db.close();
rmSync(dir, { recursive: true, force: true });
