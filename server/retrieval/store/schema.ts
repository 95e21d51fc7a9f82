/**
 * The row shape of a chunk table and its Arrow schema. Column names are snake_case on disk (they
 * appear in `where` clauses) and camelCase in TypeScript; this file is the one place that maps them.
 */
import { Field, FixedSizeList, Float32, Int32, List, Schema, Utf8 } from "apache-arrow";

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
  /** `text` with identifiers split (parseConfigFile → parse config file): what BM25 indexes. */
  searchText: string;
  /** Hash of the whole file the chunk came from: unchanged files are skipped on re-index. */
  contentHash: string;
  vector: Float32Array;
}

/** Columns read back for a hit (never the vector: 4 KB a row for nothing). */
export const HIT_COLUMNS = ["id", "file", "language", "start_line", "end_line", "symbol_path", "text"] as const;

export function chunkSchema(dims: number): Schema {
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
    utf8("content_hash"),
    new Field("vector", new FixedSizeList(dims, new Field("item", new Float32(), true)), false),
  ]);
}

export function toRecord(row: ChunkRow): Record<string, unknown> {
  return {
    id: row.id,
    file: row.file,
    language: row.language,
    start_line: row.startLine,
    end_line: row.endLine,
    symbol_path: row.symbolPath,
    symbol_kinds: row.symbolKinds,
    text: row.text,
    search_text: row.searchText,
    content_hash: row.contentHash,
    // Arrow's row builder wants a plain array for a fixed-size list.
    vector: Array.from(row.vector),
  };
}

/** One search hit as the store returns it, before fusion. */
export interface StoredHit {
  id: string;
  file: string;
  language: string;
  startLine: number;
  endLine: number;
  symbolPath: string | null;
  text: string;
  /** Vector: cosine similarity (1 − dot distance). Full text: BM25 score. Higher is better in both. */
  score: number;
}

export function fromRecord(r: Record<string, unknown>, score: number): StoredHit {
  return {
    id: String(r.id),
    file: String(r.file),
    language: String(r.language),
    startLine: Number(r.start_line),
    endLine: Number(r.end_line),
    symbolPath: r.symbol_path == null ? null : String(r.symbol_path),
    text: String(r.text),
    score,
  };
}
