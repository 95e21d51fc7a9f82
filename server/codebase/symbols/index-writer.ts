/**
 * Writes a symbol index. It builds into `<path>.tmp-<pid>` with journaling off (a crash leaves only a
 * temp file) and renames over `<path>` when complete, so a reader never sees a half-written index.
 */
import { renameSync, rmSync } from "node:fs";
import Database from "better-sqlite3";
import { INDEXES, SCHEMA_VERSION, TABLES } from "./schema.ts";
import type { Definition, FileSymbols, ImportRef, ModuleResolution } from "./types.ts";

export class IndexWriter {
  private db: Database.Database;
  private tmpPath: string;
  private fileIds = new Map<string, number>();
  private insertFile: Database.Statement;
  private insertSymbol: Database.Statement;
  private insertRef: Database.Statement;
  private insertImport: Database.Statement;
  private closed = false;

  constructor(private path: string) {
    this.tmpPath = `${path}.tmp-${process.pid}-${Date.now()}`;
    this.db = new Database(this.tmpPath);
    this.db.pragma("journal_mode = OFF");
    this.db.pragma("synchronous = OFF");
    this.db.pragma("locking_mode = EXCLUSIVE");
    this.db.exec(TABLES);
    this.insertFile = this.db.prepare(
      "INSERT INTO files (path, language, status, note, lines, bytes, parse_errors) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    this.insertSymbol = this.db.prepare(
      "INSERT INTO symbols (file_id, name, kind, container, start_line, end_line, signature, exported) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    );
    this.insertRef = this.db.prepare("INSERT INTO refs (file_id, name, kind, line, col) VALUES (?, ?, ?, ?, ?)");
    this.insertImport = this.db.prepare(
      "INSERT INTO imports (file_id, specifier, kind, line, names, target_kind, target_path) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    // One transaction for the whole build: per-row commits would dominate the cost.
    this.db.exec("BEGIN");
  }

  addFile(file: FileSymbols): void {
    const info = this.insertFile.run(
      file.path,
      file.language,
      file.status,
      file.note,
      file.lines,
      file.bytes,
      file.parseErrors ? 1 : 0,
    );
    const id = Number(info.lastInsertRowid);
    this.fileIds.set(file.path, id);
    this.addDefinitions(id, file.definitions);
    for (const r of file.references) this.insertRef.run(id, r.name, r.kind, r.line, r.column);
  }

  /** Outline definitions that arrive separately (ctags runs beside the pass). */
  addOutline(path: string, definitions: Definition[]): void {
    const id = this.fileIds.get(path);
    if (id !== undefined) this.addDefinitions(id, definitions);
  }

  addImport(path: string, imp: ImportRef, target: Pick<ModuleResolution, "kind" | "path">): void {
    const id = this.fileIds.get(path);
    if (id !== undefined)
      this.insertImport.run(id, imp.specifier, imp.kind, imp.line, JSON.stringify(imp.names), target.kind, target.path);
  }

  private addDefinitions(fileId: number, definitions: Definition[]): void {
    for (const d of definitions)
      this.insertSymbol.run(
        fileId,
        d.name,
        d.kind,
        d.container,
        d.startLine,
        d.endLine,
        d.signature,
        d.exported ? 1 : 0,
      );
  }

  /** Index, record the metadata, close and move into place. */
  finish(meta: Record<string, unknown>): void {
    const setMeta = this.db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)");
    setMeta.run("schema_version", String(SCHEMA_VERSION));
    for (const [key, value] of Object.entries(meta)) setMeta.run(key, JSON.stringify(value));
    this.db.exec("COMMIT");
    this.db.exec(INDEXES);
    this.db.close();
    this.closed = true;
    renameSync(this.tmpPath, this.path);
  }

  /** Drop the temp file (after a failure). */
  abort(): void {
    if (!this.closed) {
      try {
        this.db.close();
      } catch {
        // already closed
      }
      this.closed = true;
    }
    rmSync(this.tmpPath, { force: true });
  }
}
