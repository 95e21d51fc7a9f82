/**
 * Which indexes a chunk table carries, and how a vector query uses them. BM25 on `search_text` and
 * `names_text` always (FULLTEXT_OPTIONS, FULLTEXT_FIELD_BOOSTS). The vector index depends on the table's size; measured with the hash embedder (1024 dims)
 * on real code chunks replicated with perturbation, natural-language queries, LanceDB 0.31, 2 shared
 * cores (bench/measure/ann.ts, bench/search.ts → bench/results/search.json):
 *  - exact scan: p50 209 ms at 250k rows (~0.8 µs a row: it reads every 4 KB vector), ~7 ms at 2.3k;
 *  - IVF partitions of any kind lose recall: IVF_FLAT recalled 0.58–0.69 probing 40 of 224 partitions
 *    at 50k, 0.67 probing 80 of 500 at 250k. The hashed feature vector of a short query is far from
 *    every centroid, so its neighbours lie in many partitions;
 *  - HNSW_SQ (cosine; "dot" recalled 0.001 in 0.31): 0.922 / 0.946 / 0.960 at ef 300 / 500 / 800 in 4
 *    partitions, p50 18–26 ms, build 72–178 s; one 250k graph: 0.926 at ef 1400, 12 ms;
 *  - IVF_RQ (RaBitQ codes) in ONE partition, i.e. a scan of compact codes re-ranked on the stored
 *    vectors. 1 bit a dimension: recall 0.919 / 0.974 / 0.991 at refine factor 5 / 10 / 20, p50
 *    8.6 / 9.3 / 12.5 ms, build 4 s; 2 bits: 0.982 / 0.993 at refine 3 / 5, 9.3 / 11.4 ms, build 9 s;
 *    4 bits: 0.934 unrefined (6.2 ms), 0.996 / 0.997 at refine 2 / 3 (9.4 / 9.8 ms), build 17–20 s.
 *    On the bench's own vectors (path + symbol + text, which 1 bit ranks worse: 0.946 at refine 10)
 *    4 bits recall 0.994 / 0.999 / 1.000 at refine 2 / 3 / 5, p50 6.4 / 6.8 / 7.6 ms.
 * With the local embedder (640 dims, bench/measure/legs.ts at 250k rows, load ~5): the scan of the
 * codes costs ~6–7 ms a query whatever the bits (1 bit: 6.3 ms, recall 0.57 unrefined, 0.93 at
 * refine 5; 4 bits: 7.3 ms, 0.90 unrefined); what grows is the re-ranking on stored vectors, per
 * candidate: k 10 at refine 3 (30 candidates) recalled 0.998, 9.4 ms CPU; k 30 at refine 1 (the same
 * 30 candidates re-ranked) 0.998 on its first ten, 7.3 ms, while k 30 at refine 3 cost 12.5 ms.
 * So: exact below DEFAULT_ANN_THRESHOLD rows, IVF_RQ (cosine, 4 bits) above it in partitions of up to
 * ROWS_PER_PARTITION rows, all of them probed (a query's neighbours are in any), and at least
 * REFINE_CANDIDATES candidates re-ranked whatever k (refine factor ⌈30 / k⌉: 3 at k 10, 1 from k 30).
 * Rows added after the index was built are still searched (exactly) until `optimize()` folds them
 * in (store/maintenance.ts), so results stay complete between re-indexes.
 */
import { Index, type Table } from "@lancedb/lancedb";

/** Rows from which the ANN index pays off: an exact scan costs ~0.8 µs a row at 1024 dims (2–3 µs on
 * a busy machine), ~10–25 ms at 10k rows, while the quantized scan costs a fraction of that and the
 * index builds in about a second. */
export const DEFAULT_ANN_THRESHOLD = 10_000;

/** Exact search: vectors are L2-normalised, so the dot product is the cosine, and unlike "cosine" it
 * keeps the zero vector of a featureless chunk (similar to nothing, score 0) in the ranking. */
export const DISTANCE = "dot" as const;
/** The ANN index: cosine ranks like dot for unit vectors and only skips zero vectors, which no query
 * is near anyway ("dot" was broken for LanceDB's HNSW; cosine is what was measured for RQ). */
export const ANN_DISTANCE = "cosine" as const;

/** Rows per IVF partition. Partitions only split the scan (every one is probed), so one partition up
 * to a million rows; beyond that, several keep each partition's training and scan bounded. */
const ROWS_PER_PARTITION = 1_000_000;
/** Bits per dimension of the RaBitQ codes, and candidates re-ranked on the stored vectors per
 * result: see the file comment. */
const RQ_BITS = 4;
const PROBE_EVERY_PARTITION = 4_096;
/** Candidates re-ranked on the stored vectors: the refine factor is ⌈REFINE_CANDIDATES / k⌉ (see the
 * file comment; a deeper query needs no extra factor, its own k already re-ranks that many). */
export const REFINE_CANDIDATES = 30;

/** LanceDB's refine factor for a query of `k` results. */
export const refineFactorFor = (k: number) => Math.max(1, Math.ceil(REFINE_CANDIDATES / Math.max(1, k)));

export type VectorIndexKind = "exact" | "ivf_rq";

/**
 * The full-text fields' tokenizer: LanceDB's "simple" split, lower-cased, English stop words removed,
 * Snowball English stemming, ASCII folding (`café` → `cafe`). The text arrives identifier-split
 * (text/fields.ts), so `parseConfigFile` is indexed as `parseconfigfil pars config file`, and the
 * query goes through the same tokenizer. Measured (bench/results/search.json; Cranfield nDCG@10,
 * code-set MRR@10): no stemming, no stop words 0.331 / 0.427 → stemming 0.362 / 0.446 → both 0.359 /
 * 0.478. No positions: phrase queries are not offered, and they cost index size and build time.
 * Tables written before this (layout 1: one `search_text` field, no stemming) keep their own
 * tokenizer; they are read as they are and rebuilt on the next re-index (index-snapshot.ts).
 */
export const FULLTEXT_OPTIONS = {
  baseTokenizer: "simple",
  language: "English",
  lowercase: true,
  stem: true,
  removeStopWords: true,
  asciiFolding: true,
  withPosition: false,
} as const;

/** The fields BM25 searches, and the weight of each one's score (LanceDB's multi-match query sums
 * them). Names twice the body: on the code set's development queries, body alone 0.490, names
 * weighted 1 / 1.5 / 2 / 3 → 0.476 / 0.528 / 0.544 / 0.478 (MRR@10). */
export const FULLTEXT_FIELDS = ["search_text", "names_text"] as const;
export const FULLTEXT_FIELD_BOOSTS = [1, 2] as const;

export interface IndexPlan {
  fulltext: boolean;
  vector: VectorIndexKind;
}

export function planIndexes(rows: number, annThreshold = DEFAULT_ANN_THRESHOLD): IndexPlan {
  return { fulltext: true, vector: rows >= annThreshold ? "ivf_rq" : "exact" };
}

export function annPartitions(rows: number): number {
  return Math.max(1, Math.ceil(rows / ROWS_PER_PARTITION));
}

/** How a vector query runs against a table: its distance and the ANN knobs (none for exact). */
export interface VectorSearchSettings {
  distance: typeof DISTANCE | typeof ANN_DISTANCE;
  ann: { nprobes: number } | null;
}

export const EXACT_SEARCH: VectorSearchSettings = { distance: DISTANCE, ann: null };

/** Settings for a table whose vector index covers `indexedRows` rows (null: it has none). */
export function vectorSearchSettings(indexedRows: number | null): VectorSearchSettings {
  if (indexedRows === null) return EXACT_SEARCH;
  // Every partition, since IVF's choice of partitions is what loses recall here. Not counted from
  // the indexed rows (deletes shrink that count below what the partitions were built for): LanceDB
  // probes at most the partitions there are, so ask for more than any table has.
  return { distance: ANN_DISTANCE, ann: { nprobes: PROBE_EVERY_PARTITION } };
}

/** The vector index's row count, or null when the table has none. */
export async function vectorIndexRows(table: Table): Promise<number | null> {
  const index = (await table.listIndices()).find((i) => i.columns.includes("vector"));
  if (!index) return null;
  const stats = await table.indexStats(index.name);
  return stats?.numIndexedRows ?? null;
}

/** Create whatever `planIndexes` asks for and the table lacks. Returns what exists afterwards. */
export async function ensureIndexes(
  table: Table,
  annThreshold = DEFAULT_ANN_THRESHOLD,
): Promise<{ plan: IndexPlan; partitions: number | null }> {
  const rows = await table.countRows();
  const plan = planIndexes(rows, annThreshold);
  const existing = await table.listIndices();
  const has = (column: string) => existing.some((i) => i.columns.includes(column));
  const columns = new Set((await table.schema()).fields.map((f) => f.name));
  const wanted: { column: string; config: Index }[] = FULLTEXT_FIELDS.filter(
    (field) => columns.has(field) && !has(field),
  ).map((field) => ({ column: field, config: Index.fts(FULLTEXT_OPTIONS) }));
  let partitions: number | null = null;
  if (plan.vector === "ivf_rq") {
    partitions = annPartitions(rows);
    if (!has("vector"))
      wanted.push({
        column: "vector",
        config: Index.ivfRq({ numPartitions: partitions, numBits: RQ_BITS, distanceType: ANN_DISTANCE }),
      });
  }
  await createIndexes(table, wanted);
  return { plan, partitions };
}

/**
 * Build the indexes at once: each one has phases that leave the other core idle (training, the
 * commit), so building them side by side took 15 s instead of 33 s for the three indexes of a
 * 100k-chunk table (bench/measure/large-build.ts). LanceDB commits index creations on different
 * columns without conflict; should one still fail, whatever is missing is built again one at a time
 * (a genuine error then surfaces from that attempt).
 */
async function createIndexes(table: Table, wanted: readonly { column: string; config: Index }[]): Promise<void> {
  const results = await Promise.allSettled(wanted.map((w) => table.createIndex(w.column, { config: w.config })));
  if (results.every((r) => r.status === "fulfilled")) return;
  await table.checkoutLatest();
  const existing = await table.listIndices();
  for (const w of wanted)
    if (!existing.some((i) => i.columns.includes(w.column))) await table.createIndex(w.column, { config: w.config });
}
