/**
 * Each leg of a hybrid query alone, on a large table kept by bench/measure/large-build.ts (the figures
 * behind store/indexes.ts's refine rule): full text per field and with both fields, and the vector
 * leg at depths 10 / 20 / 30 × refine factors 1 / 2 / 3 / 5 with its recall@10 against an exact scan
 * (the first ten of each list). Wall p50 and process CPU per query (LanceDB's threads included).
 *
 *   MEASURE_DIR=/tmp/x node --import tsx bench/measure/large-build.ts      # once: build and keep
 *   node --import tsx bench/measure/legs.ts /tmp/x/lancedb [fts,vec]
 */
import { connect, MultiMatchQuery } from "@lancedb/lancedb";
import { loadavg } from "node:os";
import { embedderForIndex } from "../../server/retrieval/embed/from-record.ts";
import { splitIdentifiersInText } from "../../server/retrieval/split-identifiers.ts";
import { readEntry } from "../../server/retrieval/store/catalog.ts";
import { openChunkIndex, connect as storeConnect } from "../../server/retrieval/store/index.ts";
import { summarize } from "../_stats.ts";
import { codeSets } from "../search/quality.ts";

const uri = process.argv[2];
if (!uri) throw new Error("usage: legs.ts <lancedb dir of a large-build.ts table> [fts,vec]");
const modes = (process.argv[3] ?? "fts,vec").split(",");
const js = (await codeSets(400)).find((s) => s.name === "codeJs")!;
const queries = js.queries.map((q) => q.text).slice(0, 150);
const store = await storeConnect(uri);
const index = (await openChunkIndex(store, "large"))!;
const table = await (await connect(uri)).openTable((await readEntry(store.db, "large"))!.table);
const vectors = await embedderForIndex(index.embedder, index.embedderState).embedQueries!(queries);
const words = queries.map((q) => splitIdentifiersInText(q, { keepOriginal: true }));

async function timed(name: string, fn: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 10; i++) await fn(i);
  const samples: number[] = [];
  const c0 = process.cpuUsage();
  for (let i = 0; i < queries.length; i++) {
    const t = performance.now();
    await fn(i);
    samples.push(performance.now() - t);
  }
  const c = process.cpuUsage(c0);
  const cpu = (c.user + c.system) / 1000 / queries.length;
  console.log(
    `${name.padEnd(28)} p50 ${summarize(samples).p50.toFixed(1).padStart(5)} ms  cpu/query ${cpu.toFixed(1).padStart(5)} ms  load ${loadavg()[0]!.toFixed(1)}`,
  );
}

if (modes.includes("fts"))
  for (const k of [10, 30]) {
    const ranked = (q: ReturnType<typeof table.query>) => q.limit(k).withRowId().select(["_score"]).toArray();
    for (const field of ["search_text", "names_text"])
      await timed(`fts ${field} k${k}`, (i) => ranked(table.query().fullTextSearch(words[i]!, { columns: [field] })));
    await timed(`fts both fields k${k}`, (i) =>
      ranked(
        table.query().fullTextSearch(new MultiMatchQuery(words[i]!, ["search_text", "names_text"], { boosts: [1, 2] })),
      ),
    );
  }

if (modes.includes("vec")) {
  const exact: bigint[][] = [];
  for (const v of vectors)
    exact.push(
      (
        (await table
          .vectorSearch(v)
          .distanceType("dot")
          .bypassVectorIndex()
          .limit(10)
          .withRowId()
          .select(["_distance"])
          .toArray()) as { _rowid: bigint }[]
      ).map((r) => r._rowid),
    );
  for (const k of [10, 20, 30])
    for (const refine of [1, 2, 3, 5]) {
      const recalls: number[] = [];
      const run = async (i: number) => {
        const rows = (await table
          .vectorSearch(vectors[i]!)
          .distanceType("cosine")
          .nprobes(4096)
          .refineFactor(refine)
          .limit(k)
          .withRowId()
          .select(["_distance"])
          .toArray()) as { _rowid: bigint }[];
        return new Set(rows.slice(0, 10).map((r) => r._rowid));
      };
      await timed(`vector k${k} refine ${refine}`, async (i) => run(i));
      for (let i = 0; i < queries.length; i++) {
        const got = await run(i);
        recalls.push(exact[i]!.filter((x) => got.has(x)).length / Math.max(1, exact[i]!.length));
      }
      console.log(`  recall@10 ${(recalls.reduce((a, b) => a + b, 0) / recalls.length).toFixed(3)}`);
    }
}
index.close();
store.close();
