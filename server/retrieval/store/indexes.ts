/**
 * Which indexes a chunk table carries, and how a vector query uses them. BM25 on `search_text`
 * always. The vector index depends on the table's size; measured with the hash embedder (1024 dims)
 * on real code chunks replicated with perturbation, natural-language queries, LanceDB 0.31, 2 shared
 * cores (server/retrieval/measure-ann.ts, bench/search.ts → bench/results/search.json):
 *  - exact scan: p50 209 ms at 250k rows (~0.8 µs a row: it reads every 4 KB vector), ~7 ms at 2.3k;
 *  - IVF_FLAT (and so any LanceDB IVF index — choosing partitions is what fails): recall@10 0.58–0.69
 *    probing 40 of 224 partitions at 50k, 0.67 probing 80 of 500 at 250k. The hashed feature vector of
 *    a short query is far from every centroid, so its neighbours lie in many partitions;
 *  - HNSW_SQ with distance "dot": recall 0.001 (broken for this metric in 0.31). With "cosine": 0.90
 *    at ef 400 without refinement (8-bit SQ of mostly-zero vectors scrambles close scores), ≥ 0.99
 *    with refineFactor 5 at 50k; at 250k in 4 partitions recall 0.922 / 0.946 / 0.960 and p50
 *    18 / 20 / 23 ms at ef 300 / 500 / 800 (8 partitions, ef 500: 0.943, 25 ms); build 72–178 s.
 * So: exact below DEFAULT_ANN_THRESHOLD rows, IVF_HNSW_SQ (cosine) above it in a few big partitions,
 * all of them searched (a query's neighbours are in any), re-ranked on the stored vectors. Rows added
 * after the index was built are still searched (exactly) until `optimize()` folds them in
 * (store/maintenance.ts), so results stay complete between re-indexes.
 */
import { Index, type Table } from "@lancedb/lancedb";

/** Rows from which the ANN index pays off: an exact scan costs ~0.8 µs a row at 1024 dims (2–3 µs on
 * a busy machine), ~10–25 ms at 10k rows, about what the ANN query costs, while an HNSW index over
 * 10k rows builds in a few seconds. */
export const DEFAULT_ANN_THRESHOLD = 10_000;

/** Exact search: vectors are L2-normalised, so the dot product is the cosine, and unlike "cosine" it
 * keeps the zero vector of a featureless chunk (similar to nothing, score 0) in the ranking. */
export const DISTANCE = "dot" as const;
/** The ANN index: "dot" HNSW recalled almost nothing (above); cosine ranks like dot for unit vectors
 * and only skips zero vectors, which no query is near anyway. */
export const ANN_DISTANCE = "cosine" as const;

/** Rows per HNSW partition: each partition is one graph; smaller graphs build faster, but every
 * partition is searched: at 250k, 4 partitions answered faster than 8 at the same recall. */
const ROWS_PER_PARTITION = 64_000;
/** Graph degree and build beam: m 16 / efConstruction 150, below the defaults (20 / 300) to keep the
 * build of a 250k table within minutes on 2 cores; the search beam makes up the recall. */
const HNSW_M = 16;
const HNSW_EF_CONSTRUCTION = 150;
/** Search beam and re-ranking depth. At 250k, ef 800 recalled 0.960 in measure-ann.ts (vectors of
 * chunk text alone) but 0.942 in the bench (production vectors, which include the path); ef 1400
 * recalls 0.964 there at vector p50 ~26 ms (bench/results/search.json). */
const HNSW_EF = 1400;
const REFINE_FACTOR = 5;

export type VectorIndexKind = "exact" | "ivf_hnsw_sq";

export interface IndexPlan {
  fulltext: boolean;
  vector: VectorIndexKind;
}

export function planIndexes(rows: number, annThreshold = DEFAULT_ANN_THRESHOLD): IndexPlan {
  return { fulltext: true, vector: rows >= annThreshold ? "ivf_hnsw_sq" : "exact" };
}

export function annPartitions(rows: number): number {
  return Math.max(1, Math.ceil(rows / ROWS_PER_PARTITION));
}

/** How a vector query runs against a table: its distance and the ANN knobs (none for exact). */
export interface VectorSearchSettings {
  distance: typeof DISTANCE | typeof ANN_DISTANCE;
  ann: { nprobes: number; ef: number; refineFactor: number } | null;
}

export const EXACT_SEARCH: VectorSearchSettings = { distance: DISTANCE, ann: null };

/** Settings for a table whose vector index covers `indexedRows` rows (null: it has none). */
export function vectorSearchSettings(indexedRows: number | null): VectorSearchSettings {
  if (indexedRows === null) return EXACT_SEARCH;
  // Every partition, since IVF's choice of partitions is what loses recall here. The ef must also
  // cover the re-ranked candidates (k × refineFactor), or LanceDB refuses the query: see `efFor`.
  return { distance: ANN_DISTANCE, ann: { nprobes: annPartitions(indexedRows), ef: HNSW_EF, refineFactor: REFINE_FACTOR } };
}

/** LanceDB requires ef ≥ the candidates it is asked for. */
export function efFor(settings: NonNullable<VectorSearchSettings["ann"]>, k: number): number {
  return Math.max(settings.ef, k * settings.refineFactor);
}

/** The vector index's row count, or null when the table has none. */
export async function vectorIndexRows(table: Table): Promise<number | null> {
  const index = (await table.listIndices()).find((i) => i.columns.includes("vector"));
  if (!index) return null;
  const stats = await table.indexStats(index.name);
  return stats?.numIndexedRows ?? null;
}

/** Create whatever `planIndexes` asks for and the table lacks. Returns what exists afterwards. */
export async function ensureIndexes(table: Table, annThreshold = DEFAULT_ANN_THRESHOLD): Promise<{ plan: IndexPlan; partitions: number | null }> {
  const rows = await table.countRows();
  const plan = planIndexes(rows, annThreshold);
  const existing = await table.listIndices();
  const has = (column: string) => existing.some((i) => i.columns.includes(column));
  if (!has("search_text")) {
    // Defaults: "simple" tokenizer, lower-casing, no stemming (identifier parts are not English), and
    // stop words kept — `get`, `set`, `is` are meaningful parts of names.
    await table.createIndex("search_text", { config: Index.fts({ stem: false, removeStopWords: false, withPosition: false }) });
  }
  let partitions: number | null = null;
  if (plan.vector === "ivf_hnsw_sq") {
    partitions = annPartitions(rows);
    if (!has("vector")) {
      await table.createIndex("vector", {
        config: Index.hnswSq({ numPartitions: partitions, distanceType: ANN_DISTANCE, m: HNSW_M, efConstruction: HNSW_EF_CONSTRUCTION }),
      });
    }
  }
  return { plan, partitions };
}
