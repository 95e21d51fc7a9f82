/**
 * Reading one logical index: resolve it through the catalog, pin the last complete version, and run
 * the two kinds of search LanceDB does for us. Fusion, query parsing and result shaping live in
 * ../search.ts; this file only speaks LanceDB.
 */
import type { Table } from "@lancedb/lancedb";
import type { EmbedderRecord } from "../embed/types.ts";
import { readEntry } from "./catalog.ts";
import { assertIndexName, type Store } from "./connect.ts";
import { efFor, EXACT_SEARCH, vectorIndexRows, vectorSearchSettings, type VectorSearchSettings } from "./indexes.ts";
import { fromRecord, HIT_COLUMNS, type StoredHit } from "./schema.ts";

export interface ChunkIndex {
  readonly name: string;
  readonly embedder: EmbedderRecord;
  /** The embedder's fitted state as stored (the hash embedder's IDF), or null. */
  readonly embedderState: unknown;
  readonly version: number;
  /** How vector queries run: an exact scan, or the ANN index (see indexes.ts). */
  readonly vectorIndex: "exact" | "ivf_hnsw_sq";
  rowCount(): Promise<number>;
  /** file → content hash of every indexed file. */
  fileHashes(): Promise<Map<string, string>>;
  /** Nearest chunks by the index's distance. `exact` scans every row even when an ANN index exists
   * (the reference for measuring the ANN index's recall). */
  vectorSearch(vector: Float32Array, k: number, where?: string, options?: { exact?: boolean }): Promise<StoredHit[]>;
  fullTextSearch(text: string, k: number, where?: string): Promise<StoredHit[]>;
  close(): void;
}

/** The index named `name`, or null when it was never built. */
export async function openChunkIndex(store: Store, name: string): Promise<ChunkIndex | null> {
  assertIndexName(name);
  const entry = await readEntry(store.db, name);
  if (!entry) return null;
  const table = await store.db.openTable(entry.table);
  // A writer that died after committing rows but before moving the catalog left newer versions:
  // read the last complete one (a read-only time-travel view).
  if ((await table.version()) !== entry.version) await table.checkout(entry.version);
  const settings = vectorSearchSettings(await vectorIndexRows(table));
  return makeIndex(name, entry.embedder, entry.embedderState, entry.version, table, settings);
}

function makeIndex(name: string, embedder: EmbedderRecord, embedderState: unknown, version: number, table: Table, settings: VectorSearchSettings): ChunkIndex {
  return {
    name,
    embedder,
    embedderState,
    version,
    rowCount: () => table.countRows(),
    async fileHashes() {
      const out = new Map<string, string>();
      // One row per chunk; a file's chunks all carry the file's hash.
      for await (const batch of table.query().select(["file", "content_hash"])) {
        const files = batch.getChild("file")!;
        const hashes = batch.getChild("content_hash")!;
        for (let i = 0; i < batch.numRows; i++) out.set(String(files.get(i)), String(hashes.get(i)));
      }
      return out;
    },
    vectorIndex: settings.ann ? "ivf_hnsw_sq" : "exact",
    async vectorSearch(vector, k, where, options) {
      const s = options?.exact ? EXACT_SEARCH : settings;
      let q = table.vectorSearch(vector).distanceType(s.distance).limit(k);
      if (options?.exact) q = q.bypassVectorIndex();
      if (s.ann) q = q.nprobes(s.ann.nprobes).ef(efFor(s.ann, k)).refineFactor(s.ann.refineFactor);
      if (where) q = q.where(where);
      // Selecting `_distance` explicitly also silences LanceDB's per-query deprecation warning.
      const rows = (await q.select([...HIT_COLUMNS, "_distance"]).toArray()) as Record<string, unknown>[];
      // Dot and cosine distances are both 1 − cosine for unit vectors: back to a similarity.
      return rows.map((r) => fromRecord(r, 1 - Number(r._distance)));
    },
    async fullTextSearch(text, k, where) {
      let q = table.query().fullTextSearch(text, { columns: ["search_text"] }).limit(k);
      if (where) q = q.where(where);
      const rows = (await q.select([...HIT_COLUMNS, "_score"]).toArray()) as Record<string, unknown>[];
      return rows.map((r) => fromRecord(r, Number(r._score)));
    },
    close: () => table.close(),
  };
}
