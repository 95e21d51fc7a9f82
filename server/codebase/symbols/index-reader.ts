/**
 * Queries over a built symbol index (read-only). Every query is one indexed SQLite lookup or a bounded
 * scan of the symbols table, so answers come in milliseconds on a 100k-line project.
 */
import Database from "better-sqlite3";
import { notFound } from "../../errors.ts";
import type { ModuleConfig } from "./modules/config.ts";
import { ModuleResolver } from "./modules/resolve.ts";
import { SCHEMA_VERSION } from "./schema.ts";
import type {
  FileSymbols,
  ImportKind,
  ModuleResolution,
  ReferenceHit,
  ReferenceKind,
  SymbolHit,
  SymbolKind,
} from "./types.ts";

export interface ListSymbolsOptions {
  file?: string;
  kind?: SymbolKind | SymbolKind[];
  /** Case-insensitive substring of the name; exact and prefix matches rank first. */
  query?: string;
  limit?: number;
  offset?: number;
}

/** A file as the index lists it: what the pass recorded, without its symbols. */
export type IndexedFile = Omit<FileSymbols, "definitions" | "references" | "imports">;

export interface ImportEdge {
  file: string;
  specifier: string;
  kind: ImportKind;
  line: number;
  names: string[];
  targetKind: ModuleResolution["kind"];
  target: string | null;
}

export interface IndexStats {
  files: number;
  lines: number;
  definitions: number;
  references: number;
  imports: number;
  byStatus: Record<string, number>;
  byLanguage: Record<string, { files: number; lines: number }>;
  meta: Record<string, unknown>;
}

interface SymbolRow {
  name: string;
  kind: SymbolKind;
  container: string | null;
  start_line: number;
  end_line: number;
  signature: string;
  exported: number;
  path: string;
  language: string;
}

const SYMBOL_COLUMNS =
  "s.name, s.kind, s.container, s.start_line, s.end_line, s.signature, s.exported, f.path, f.language";
const DEFAULT_LIMIT = 200;
const MAX_LIMIT = 5000;

/** Definitions before declarations-of-data: a class or function is what "go to definition" wants. */
const KIND_ORDER = `CASE s.kind WHEN 'class' THEN 0 WHEN 'struct' THEN 0 WHEN 'interface' THEN 1 WHEN 'trait' THEN 1 WHEN 'enum' THEN 1 WHEN 'type' THEN 1 WHEN 'function' THEN 2 WHEN 'method' THEN 3 WHEN 'constructor' THEN 3 WHEN 'module' THEN 4 WHEN 'constant' THEN 5 ELSE 6 END`;

const toHit = (r: SymbolRow): SymbolHit => ({
  name: r.name,
  kind: r.kind,
  container: r.container,
  startLine: r.start_line,
  endLine: r.end_line,
  signature: r.signature,
  exported: r.exported === 1,
  path: r.path,
  language: r.language,
});

const clampLimit = (n: number | undefined) => Math.max(1, Math.min(n ?? DEFAULT_LIMIT, MAX_LIMIT));
const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export class SymbolIndex {
  private db: Database.Database;
  private resolver: ModuleResolver | null = null;

  private constructor(db: Database.Database) {
    this.db = db;
  }

  /** Opens an index read-only; a missing file or another schema version is a not-found error. */
  static open(indexPath: string): SymbolIndex {
    let db: Database.Database;
    try {
      db = new Database(indexPath, { readonly: true, fileMustExist: true });
    } catch {
      throw notFound("This snapshot has no symbol index yet.");
    }
    const version = (
      db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined
    )?.value;
    if (version !== String(SCHEMA_VERSION)) {
      db.close();
      throw notFound("This snapshot's symbol index is from another version of Argus; re-index it.");
    }
    return new SymbolIndex(db);
  }

  close(): void {
    this.db.close();
  }

  listSymbols(options: ListSymbolsOptions = {}): SymbolHit[] {
    const where: string[] = [];
    const params: unknown[] = [];
    if (options.file !== undefined) {
      where.push("f.path = ?");
      params.push(options.file);
    }
    const kinds = options.kind === undefined ? [] : Array.isArray(options.kind) ? options.kind : [options.kind];
    if (kinds.length) {
      where.push(`s.kind IN (${kinds.map(() => "?").join(", ")})`);
      params.push(...kinds);
    }
    const q = options.query?.trim();
    let order = "f.path, s.start_line";
    const orderParams: unknown[] = [];
    if (q) {
      where.push("s.name LIKE ? ESCAPE '\\'");
      params.push(`%${likeEscape(q)}%`);
      order = "(s.name = ?) DESC, (s.name LIKE ? ESCAPE '\\') DESC, length(s.name), f.path, s.start_line";
      orderParams.push(q, `${likeEscape(q)}%`);
    }
    const sql = `SELECT ${SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY ${order} LIMIT ? OFFSET ?`;
    const rows = this.db
      .prepare(sql)
      .all(...params, ...orderParams, clampLimit(options.limit), Math.max(0, options.offset ?? 0)) as SymbolRow[];
    return rows.map(toHit);
  }

  /** Exact name (case-sensitive first, then case-insensitive); `Container.name` / `Container::name` narrow by container. */
  findDefinition(name: string, options: { limit?: number } = {}): SymbolHit[] {
    const m = /^(.+?)(?:\.|::|#)([^.:#]+)$/.exec(name.trim());
    const [container, bare] = m ? [m[1]!.split(/\.|::/).pop()!, m[2]!] : [null, name.trim()];
    const containerClause = container ? " AND s.container = ?" : "";
    const args = container ? [bare, container] : [bare];
    const limit = clampLimit(options.limit);
    const order = `ORDER BY s.exported DESC, ${KIND_ORDER}, f.path, s.start_line LIMIT ?`;
    let rows = this.db
      .prepare(
        `SELECT ${SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.name = ?${containerClause} ${order}`,
      )
      .all(...args, limit) as SymbolRow[];
    if (rows.length === 0)
      rows = this.db
        .prepare(
          `SELECT ${SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.name = ? COLLATE NOCASE${containerClause} ${order}`,
        )
        .all(...args, limit) as SymbolRow[];
    return rows.map(toHit);
  }

  findReferences(name: string, options: { limit?: number; kind?: ReferenceKind } = {}): ReferenceHit[] {
    const kindClause = options.kind ? " AND r.kind = ?" : "";
    const rows = this.db
      .prepare(
        `SELECT r.name, r.kind, r.line, r.col, f.path FROM refs r JOIN files f ON f.id = r.file_id WHERE r.name = ?${kindClause} ORDER BY f.path, r.line LIMIT ?`,
      )
      .all(...(options.kind ? [name, options.kind] : [name]), clampLimit(options.limit)) as {
      name: string;
      kind: ReferenceKind;
      line: number;
      col: number;
      path: string;
    }[];
    return rows.map((r) => ({ name: r.name, kind: r.kind, line: r.line, column: r.col, path: r.path }));
  }

  /** Resolves any specifier as seen from `fromFile` (imported there or not), from the stored file list. */
  findModule(specifier: string, fromFile: string): ModuleResolution {
    return this.moduleResolver().resolve(specifier, fromFile);
  }

  /** What a file imports, with each import's resolution. */
  importsOf(file: string): ImportEdge[] {
    return this.importRows("f.path = ?", file);
  }

  /** Files that import `file` (for Go: any file of its package directory). */
  importersOf(file: string): ImportEdge[] {
    const dir = file.includes("/") ? file.slice(0, file.lastIndexOf("/")) : "";
    return this.importRows("(i.target_path = ? OR (i.target_kind = 'package' AND i.target_path = ?))", file, dir);
  }

  private importRows(where: string, ...params: unknown[]): ImportEdge[] {
    const rows = this.db
      .prepare(
        `SELECT f.path, i.specifier, i.kind, i.line, i.names, i.target_kind, i.target_path FROM imports i JOIN files f ON f.id = i.file_id WHERE ${where} ORDER BY f.path, i.line LIMIT ${MAX_LIMIT}`,
      )
      .all(...params) as {
      path: string;
      specifier: string;
      kind: ImportKind;
      line: number;
      names: string;
      target_kind: ModuleResolution["kind"];
      target_path: string | null;
    }[];
    return rows.map((r) => ({
      file: r.path,
      specifier: r.specifier,
      kind: r.kind,
      line: r.line,
      names: JSON.parse(r.names) as string[],
      targetKind: r.target_kind,
      target: r.target_path,
    }));
  }

  files(): IndexedFile[] {
    const rows = this.db
      .prepare("SELECT path, language, status, note, lines, bytes, parse_errors FROM files ORDER BY path")
      .all() as (Omit<IndexedFile, "parseErrors"> & { parse_errors: number })[];
    return rows.map(({ parse_errors, ...row }) => ({ ...row, parseErrors: parse_errors === 1 }));
  }

  stats(): IndexStats {
    const count = (sql: string) => (this.db.prepare(sql).get() as { n: number }).n;
    const byStatus: Record<string, number> = {};
    for (const r of this.db.prepare("SELECT status, count(*) AS n FROM files GROUP BY status").all() as {
      status: string;
      n: number;
    }[])
      byStatus[r.status] = r.n;
    const byLanguage: Record<string, { files: number; lines: number }> = {};
    for (const r of this.db
      .prepare("SELECT language, count(*) AS n, sum(lines) AS l FROM files GROUP BY language")
      .all() as { language: string; n: number; l: number }[])
      byLanguage[r.language] = { files: r.n, lines: r.l };
    const meta: Record<string, unknown> = {};
    for (const r of this.db.prepare("SELECT key, value FROM meta").all() as { key: string; value: string }[]) {
      if (r.key === "module_config") continue;
      try {
        meta[r.key] = JSON.parse(r.value);
      } catch {
        meta[r.key] = r.value;
      }
    }
    return {
      files: count("SELECT count(*) AS n FROM files"),
      lines: count("SELECT coalesce(sum(lines), 0) AS n FROM files"),
      definitions: count("SELECT count(*) AS n FROM symbols"),
      references: count("SELECT count(*) AS n FROM refs"),
      imports: count("SELECT count(*) AS n FROM imports"),
      byStatus,
      byLanguage,
      meta,
    };
  }

  private moduleResolver(): ModuleResolver {
    if (!this.resolver) {
      const row = this.db.prepare("SELECT value FROM meta WHERE key = 'module_config'").get() as
        { value: string } | undefined;
      const config = row
        ? (JSON.parse(row.value) as ModuleConfig)
        : { tsconfigs: [], packages: [], goModules: [], pythonRoots: [""] };
      const paths = (this.db.prepare("SELECT path FROM files").all() as { path: string }[]).map((r) => r.path);
      this.resolver = new ModuleResolver(config, paths);
    }
    return this.resolver;
  }
}

export function openSymbolIndex(indexPath: string): SymbolIndex {
  return SymbolIndex.open(indexPath);
}
