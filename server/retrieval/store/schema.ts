/**
 * The row shape of a chunk table and its Arrow schema. Column names are snake_case on disk (they
 * appear in `where` clauses) and camelCase in TypeScript; this file is the one place that maps them.
 */
import { createRequire } from "node:module";
import type {
  Data,
  DataType,
  FixedSizeList as FixedSizeListType,
  Float32 as Float32Type,
  Schema as SchemaType,
  Table as ArrowTable,
} from "apache-arrow";

// LanceDB `require`s apache-arrow (the CommonJS build); an ESM import gets the other build, whose
// classes fail LanceDB's `instanceof` checks ("Table and inner RecordBatch schemas must be
// equivalent"). Building with LanceDB's copy makes our tables its tables.
const {
  Field,
  FixedSizeList,
  Float32,
  Int32,
  List,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Table,
  Utf8,
  vectorFromArray,
} = createRequire(import.meta.url)("apache-arrow") as typeof import("apache-arrow");

export interface ChunkRow {
  /** Unique within a table: file, line range and position in the file's chunk list. */
  id: string;
  file: string;
  language: string;
  startLine: number;
  endLine: number;
  symbolPath: string | null;
  /** Kinds of every definition the chunk covers ("function", "class"…): the symbol-kind filter. */
  symbolKinds: string[];
  text: string;
  /** `text` with identifiers split (parseConfigFile → parse config file): BM25's body field. */
  searchText: string;
  /** Path, symbol path and defined names, identifiers split: BM25's names field, weighted higher
   * (text/fields.ts). Empty when a row has none (pipeline passages). */
  namesText?: string;
  /** Hash of the whole file the chunk came from: unchanged files are skipped on re-index. */
  contentHash: string;
  vector: Float32Array;
}

/** Columns read back for a hit (never the vector: 4 KB a row for nothing). */
export const HIT_COLUMNS = ["id", "file", "language", "start_line", "end_line", "symbol_path", "text"] as const;

export function chunkSchema(dims: number): SchemaType {
  const utf8 = (name: string, nullable = false) => new Field(name, new Utf8(), nullable);
  return new Schema([
    utf8("id"),
    utf8("file"),
    utf8("language"),
    new Field("start_line", new Int32(), false),
    new Field("end_line", new Int32(), false),
    utf8("symbol_path", true),
    new Field("symbol_kinds", new List(new Field("item", new Utf8(), true)), false),
    utf8("text"),
    utf8("search_text"),
    utf8("names_text"),
    utf8("content_hash"),
    new Field("vector", new FixedSizeList(dims, new Field("item", new Float32(), true)), false),
  ]);
}

/**
 * Rows as one Arrow table in the chunk schema, built column by column: the vectors are copied into a
 * single Float32Array (no per-number JS arrays). At 250k × 1024 dims: 59 s through row objects with
 * one JS array per vector, 7 s this way.
 */
export function toArrowTable(rows: readonly ChunkRow[], dims: number): ArrowTable {
  const schema = chunkSchema(dims);
  const n = rows.length;
  const flat = new Float32Array(n * dims);
  rows.forEach((r, i) => flat.set(r.vector, i * dims));
  const typeOf = (name: string) => schema.fields.find((f) => f.name === name)!.type as DataType;
  const built = (values: unknown[], name: string): Data => {
    const chunks = vectorFromArray(values, typeOf(name)).data;
    if (chunks.length !== 1) throw new Error(`chunk table: column ${name} built into ${chunks.length} chunks`);
    return chunks[0]!;
  };
  const ints = (values: number[]) =>
    makeData({ type: new Int32(), length: n, nullCount: 0, data: Int32Array.from(values) });
  const vectorType = typeOf("vector") as FixedSizeListType<Float32Type>;
  const children: Data[] = [
    built(
      rows.map((r) => r.id),
      "id",
    ),
    built(
      rows.map((r) => r.file),
      "file",
    ),
    built(
      rows.map((r) => r.language),
      "language",
    ),
    ints(rows.map((r) => r.startLine)),
    ints(rows.map((r) => r.endLine)),
    built(
      rows.map((r) => r.symbolPath),
      "symbol_path",
    ),
    built(
      rows.map((r) => r.symbolKinds),
      "symbol_kinds",
    ),
    built(
      rows.map((r) => r.text),
      "text",
    ),
    built(
      rows.map((r) => r.searchText),
      "search_text",
    ),
    built(
      rows.map((r) => r.namesText ?? ""),
      "names_text",
    ),
    built(
      rows.map((r) => r.contentHash),
      "content_hash",
    ),
    makeData({
      type: vectorType,
      length: n,
      nullCount: 0,
      child: makeData({ type: new Float32(), length: n * dims, nullCount: 0, data: flat }),
    }),
  ];
  const struct = makeData({ type: new Struct(schema.fields), length: n, nullCount: 0, children });
  return new Table(schema, new RecordBatch(schema, struct));
}

/** One search hit as the store returns it, before fusion. */
export interface StoredHit {
  id: string;
  /** The row's address in the version the index pinned (for `fetchHits` and fusion keys). */
  rowId: bigint;
  file: string;
  language: string;
  startLine: number;
  endLine: number;
  symbolPath: string | null;
  text: string;
  /** Vector: cosine similarity (1 − dot distance). Full text: BM25 score. Higher is better in both. */
  score: number;
  /** The stored vector, when the read asked for it (ChunkIndex.fetchHits). */
  vector?: Float32Array;
}

export function fromRecord(r: Record<string, unknown>, score: number): StoredHit {
  return {
    id: String(r.id),
    rowId: r._rowid as bigint,
    file: String(r.file),
    language: String(r.language),
    startLine: Number(r.start_line),
    endLine: Number(r.end_line),
    symbolPath: r.symbol_path == null ? null : String(r.symbol_path),
    text: String(r.text),
    score,
    ...(r.vector != null ? { vector: Float32Array.from(r.vector as Iterable<number>) } : {}),
  };
}
