/**
 * Reading one logical index: resolve it through the catalog, pin the last complete version, and run
 * the two kinds of search LanceDB does for us. Fusion, query parsing and result shaping live in
 * ../search.ts; this file only speaks LanceDB.
 */
import { MultiMatchQuery, type Table } from "@lancedb/lancedb";
import type { EmbedderRecord } from "../embed/types.ts";
import { readEntry } from "./catalog.ts";
import { assertIndexName, type Store } from "./connect.ts";
import {
  EXACT_SEARCH,
  FULLTEXT_FIELD_BOOSTS,
  FULLTEXT_FIELDS,
  refineFactorFor,
  vectorIndexRows,
  vectorSearchSettings,
  type VectorSearchSettings,
} from "./indexes.ts";
import { fromRecord, HIT_COLUMNS, type StoredHit } from "./schema.ts";

export interface ChunkIndex {
  readonly name: string;
  readonly embedder: EmbedderRecord;
  /** The embedder's fitted state as stored (the hash embedder's IDF), or null. */
  readonly embedderState: unknown;
  readonly version: number;
  /** The physical table behind it (a full rebuild makes a new one, whose versions start over). */
  readonly table: string;
  /** How vector queries run: an exact scan, or the ANN index (see indexes.ts). */
  readonly vectorIndex: "exact" | "ivf_rq";
  /** 2: BM25 over a body and a names field with stemming and stop words (indexes.ts); 1: a table
   * written before, one unstemmed field. Updating a layout-1 table means rebuilding it. */
  readonly layout: 1 | 2;
  rowCount(): Promise<number>;
  /** file → content hash of every indexed file. */
  fileHashes(): Promise<Map<string, string>>;
  /** Nearest chunks by the index's distance. `exact` scans every row even when an ANN index exists
   * (the reference for measuring the ANN index's recall). */
  vectorSearch(vector: Float32Array, k: number, where?: string, options?: { exact?: boolean }): Promise<StoredHit[]>;
  fullTextSearch(text: string, k: number, where?: string): Promise<StoredHit[]>;
  /** Full-text search without reading any column (hybrid reads only the rows of its final page). */
  rankFullText(text: string, k: number, where?: string): Promise<RankedRow[]>;
  /** The same two searches reading only each hit's id and text: every other column a hit reads is
   * another random read (a retriever over passages needs none of them; at 100k rows BM25 costs
   * 2.9 ms a query this way, 5.6 ms with the code-search columns). */
  vectorTexts(vector: Float32Array, k: number): Promise<TextHit[]>;
  fullTextTexts(text: string, k: number): Promise<TextHit[]>;
  /** Each row's id and text at these offsets of the pinned version (any order; for searches that
   * rank rows themselves, e.g. servers/pipelines' sparse postings). */
  textsAt(offsets: readonly number[]): Promise<{ id: string; text: string }[]>;
  /** Vector search without reading any column: where each hit is and its score (hybrid search reads
   * only the rows that make its final page; see `fetchHits`). */
  rankVector(vector: Float32Array, k: number, where?: string): Promise<RankedRow[]>;
  /** The rows at these addresses (from this index's searches), in the order given; `vectors` also
   * reads each row's stored vector (relevance.ts compares it with the query's). */
  fetchHits(rows: readonly RankedRow[], options?: { vectors?: boolean }): Promise<StoredHit[]>;
  close(): void;
}

/** A hit as a passage retriever needs it. */
export interface TextHit {
  id: string;
  text: string;
  score: number;
}

/** A hit before its columns are read: the row's address in the pinned version, and its score. */
export interface RankedRow {
  rowId: bigint;
  score: number;
}

/** The index named `name`, or null when it was never built. */
export async function openChunkIndex(store: Store, name: string): Promise<ChunkIndex | null> {
  assertIndexName(name);
  const entry = await readEntry(store.db, name);
  if (!entry) return null;
  const table = await store.db.openTable(entry.table);
  // Read the catalog's version, always as a read-only time-travel view: a writer that died after
  // committing rows but before moving the catalog left newer versions, and a pinned view keeps the
  // row addresses hybrid search fuses on valid for the life of this index (whatever a writer or a
  // compaction does meanwhile).
  await table.checkout(entry.version);
  const settings = vectorSearchSettings(await vectorIndexRows(table));
  const layout = (await table.schema()).fields.some((f) => f.name === "names_text") ? 2 : 1;
  return makeIndex(name, entry.embedder, entry.embedderState, entry.version, entry.table, table, settings, layout);
}

function makeIndex(
  name: string,
  embedder: EmbedderRecord,
  embedderState: unknown,
  version: number,
  physical: string,
  table: Table,
  settings: VectorSearchSettings,
  layout: 1 | 2,
): ChunkIndex {
  const vectorQuery = (vector: Float32Array, k: number, where: string | undefined, exact = false) => {
    const s = exact ? EXACT_SEARCH : settings;
    let q = table.vectorSearch(vector).distanceType(s.distance).limit(k);
    if (exact) q = q.bypassVectorIndex();
    if (s.ann) q = q.nprobes(s.ann.nprobes).refineFactor(refineFactorFor(k));
    return where ? q.where(where) : q;
  };
  const textQuery = (text: string, k: number, where: string | undefined) => {
    const q =
      layout === 2
        ? table
            .query()
            .fullTextSearch(new MultiMatchQuery(text, [...FULLTEXT_FIELDS], { boosts: [...FULLTEXT_FIELD_BOOSTS] }))
            .limit(k)
        : table
            .query()
            .fullTextSearch(text, { columns: ["search_text"] })
            .limit(k);
    return where ? q.where(where) : q;
  };
  return {
    name,
    embedder,
    embedderState,
    version,
    table: physical,
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
    vectorIndex: settings.ann ? "ivf_rq" : "exact",
    layout,
    async vectorSearch(vector, k, where, options) {
      // Selecting `_distance` explicitly also silences LanceDB's per-query deprecation warning.
      const rows = (await vectorQuery(vector, k, where, options?.exact)
        .withRowId()
        .select([...HIT_COLUMNS, "_distance"])
        .toArray()) as Record<string, unknown>[];
      return rows.map((r) => fromRecord(r, similarity(r)));
    },
    async fullTextSearch(text, k, where) {
      const rows = (await textQuery(text, k, where)
        .withRowId()
        .select([...HIT_COLUMNS, "_score"])
        .toArray()) as Record<string, unknown>[];
      return rows.map((r) => fromRecord(r, Number(r._score)));
    },
    async rankFullText(text, k, where) {
      const rows = (await textQuery(text, k, where).withRowId().select(["_score"]).toArray()) as Record<
        string,
        unknown
      >[];
      return rows.map((r) => ({ rowId: r._rowid as bigint, score: Number(r._score) }));
    },
    async vectorTexts(vector, k) {
      const rows = (await vectorQuery(vector, k, undefined).select(["id", "text", "_distance"]).toArray()) as Record<
        string,
        unknown
      >[];
      return rows.map((r) => ({ id: String(r.id), text: String(r.text), score: similarity(r) }));
    },
    async fullTextTexts(text, k) {
      const rows = (await textQuery(text, k, undefined).select(["id", "text", "_score"]).toArray()) as Record<
        string,
        unknown
      >[];
      return rows.map((r) => ({ id: String(r.id), text: String(r.text), score: Number(r._score) }));
    },
    async textsAt(offsets) {
      if (!offsets.length) return [];
      const rows = (await table
        .takeOffsets([...offsets])
        .select(["id", "text"])
        .toArray()) as Record<string, unknown>[];
      return rows.map((r) => ({ id: String(r.id), text: String(r.text) }));
    },
    async rankVector(vector, k, where) {
      const rows = (await vectorQuery(vector, k, where).withRowId().select(["_distance"]).toArray()) as Record<
        string,
        unknown
      >[];
      return rows.map((r) => ({ rowId: r._rowid as bigint, score: similarity(r) }));
    },
    async fetchHits(ranked, options) {
      if (!ranked.length) return [];
      const rows = (await table
        .takeRowIds(ranked.map((r) => r.rowId))
        .withRowId()
        .select(options?.vectors ? [...HIT_COLUMNS, "vector"] : [...HIT_COLUMNS])
        .toArray()) as Record<string, unknown>[];
      const byRowId = new Map(rows.map((r) => [r._rowid as bigint, r]));
      return ranked.map((r) => {
        const row = byRowId.get(r.rowId);
        if (!row) throw new Error(`Index "${name}": row ${r.rowId} is not in version ${version}.`);
        return fromRecord(row, r.score);
      });
    },
    close: () => table.close(),
  };
}

/** Dot and cosine distances are both 1 − cosine for unit vectors: back to a similarity. */
function similarity(row: Record<string, unknown>): number {
  return 1 - Number(row._distance);
}
