/**
 * Keeping an incrementally updated table fast. Every update adds fragments (one per append, and
 * deletion files), and rows appended after the ANN index was built are searched by a flat scan beside
 * it: both make queries slower over time, never wrong. `optimize()` compacts fragments and folds new
 * rows into the indexes (an incremental index update, not a rebuild) — it can take a while on a large
 * table, so updates only report that it is due and the caller schedules `optimizeIndex`
 * (a background job), never inside a request.
 */
import type { Table } from "@lancedb/lancedb";
import { advanceEntry, readEntry } from "./catalog.ts";
import { assertIndexName, type Store } from "./connect.ts";

/** Small fragments after which compaction is due (each costs a file open per query). */
export const SMALL_FRAGMENTS_DUE = 8;
/** Unindexed rows (flat-scanned beside the ANN index) after which folding them in is due: a share of
 * the indexed rows, at least a fixed count (a scan of 2k rows costs a few ms). */
export const UNINDEXED_SHARE_DUE = 0.1;
export const UNINDEXED_MIN_DUE = 2_000;

export interface MaintenanceState {
  smallFragments: number;
  unindexedRows: number;
  due: boolean;
}

export async function maintenanceState(table: Table): Promise<MaintenanceState> {
  const stats = await table.stats();
  const smallFragments = stats.fragmentStats.numSmallFragments;
  let unindexedRows = 0;
  let indexedRows = 0;
  const vectorIndex = (await table.listIndices()).find((i) => i.columns.includes("vector"));
  if (vectorIndex) {
    const s = await table.indexStats(vectorIndex.name);
    unindexedRows = s?.numUnindexedRows ?? 0;
    indexedRows = s?.numIndexedRows ?? 0;
  }
  const due =
    smallFragments >= SMALL_FRAGMENTS_DUE ||
    unindexedRows > Math.max(UNINDEXED_MIN_DUE, UNINDEXED_SHARE_DUE * indexedRows);
  return { smallFragments, unindexedRows, due };
}

export interface OptimizeResult {
  /** False when a writer moved the index meanwhile (nothing to do: it will be due again). */
  optimized: boolean;
  before: MaintenanceState;
  after: MaintenanceState | null;
  ms: number;
}

/** Compact the index's table and fold new rows into its indexes; readers move to the result. */
export async function optimizeIndex(store: Store, name: string): Promise<OptimizeResult> {
  assertIndexName(name);
  const started = performance.now();
  const entry = await readEntry(store.db, name);
  if (!entry) throw new Error(`Index "${name}" does not exist.`);
  const table = await store.db.openTable(entry.table);
  try {
    const before = await maintenanceState(table);
    // A newer uncommitted version means a writer is mid-update (or died): leave the table to it.
    if ((await table.version()) !== entry.version)
      return { optimized: false, before, after: null, ms: Math.round(performance.now() - started) };
    await table.optimize();
    const version = await table.version();
    // Same rows, new layout: readers may move to it unless a writer committed meanwhile.
    const moved = await advanceEntry(store.db, entry, entry.version, version);
    return {
      optimized: moved,
      before,
      after: await maintenanceState(table),
      ms: Math.round(performance.now() - started),
    };
  } finally {
    table.close();
  }
}
