/**
 * Which indexes a chunk table carries. BM25 on `search_text` always. The vector index depends on the
 * table's size (STACK.md "LanceDB 0.31.0", measured at 100k × 384 dims): below the threshold an exact
 * scan is as fast as an ANN index and has perfect recall, so there is none; above it IVF_FLAT (build
 * 1.7 s, recall@10 0.99 at 100k) — HNSW_SQ searches faster but took 117 s to build and recalled 0.94,
 * and IVF_PQ needs a refine step to be usable. Rows added after an index was built are still searched
 * (exactly) until the next `optimize()`, so results stay complete between re-indexes.
 */
import { Index, type Table } from "@lancedb/lancedb";

/** Rows from which an ANN vector index pays off. */
export const DEFAULT_ANN_THRESHOLD = 50_000;

/** Vectors are L2-normalised: the dot product is the cosine, and unlike "cosine" it does not drop the
 * zero vector of a featureless chunk (it is merely similar to nothing). */
export const DISTANCE = "dot" as const;

export interface IndexPlan {
  fulltext: boolean;
  vector: "exact" | "ivf_flat";
}

export function planIndexes(rows: number, annThreshold = DEFAULT_ANN_THRESHOLD): IndexPlan {
  return { fulltext: true, vector: rows >= annThreshold ? "ivf_flat" : "exact" };
}

/** IVF partitions: ~√rows (LanceDB's own heuristic), so a probe scans a few hundred rows per list. */
export function ivfPartitions(rows: number): number {
  return Math.max(1, Math.round(Math.sqrt(rows)));
}

/** Probes for an IVF query: enough lists for recall ≥ 0.95 on our measurements, as a share of them. */
export function ivfProbes(partitions: number): number {
  return Math.max(20, Math.ceil(partitions * 0.08));
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
  if (plan.vector === "ivf_flat") {
    partitions = ivfPartitions(rows);
    if (!has("vector")) await table.createIndex("vector", { config: Index.ivfFlat({ numPartitions: partitions, distanceType: DISTANCE }) });
  }
  return { plan, partitions };
}
