/**
 * The catalog: one row per logical index (a project snapshot, a knowledge base) naming the physical
 * table that currently serves it, the table version known to be complete, and the embedder that
 * built it. Readers go through the catalog, so
 *  - a full rebuild fills a new table and swaps the pointer (one commit) — a failed rebuild leaves
 *    the old table in place (LanceDB OSS cannot rename tables);
 *  - an incremental update writes new versions of the same table and moves `version` last — a crash
 *    midway leaves readers on the last complete version, and the next writer rolls back to it.
 * The embedder's fitted state (the hash embedder's IDF table) lives here too, next to the record
 * whose paramsHash covers it: the pair cannot drift apart.
 */
import { randomBytes } from "node:crypto";
import type { Connection, Table } from "@lancedb/lancedb";
import { Field, Int32, Schema, Utf8 } from "apache-arrow";
import { embedderRecordSchema, type EmbedderRecord } from "../embed/types.ts";
import { sqlString } from "./sql.ts";

export const CATALOG_TABLE = "_argus_catalog";

export interface CatalogEntry {
  /** Logical index name (e.g. `snapshot-<id>`). */
  name: string;
  /** Physical LanceDB table holding the chunks. */
  table: string;
  /** Last complete version of `table`. */
  version: number;
  embedder: EmbedderRecord;
  /** Embedder-specific fitted state (JSON), or null. */
  embedderState: unknown;
  updatedAt: string;
}

const schema = new Schema([
  new Field("name", new Utf8(), false),
  new Field("table", new Utf8(), false),
  new Field("version", new Int32(), false),
  new Field("embedder", new Utf8(), false),
  new Field("embedder_state", new Utf8(), false),
  new Field("updated_at", new Utf8(), false),
]);

async function catalogTable(db: Connection): Promise<Table> {
  // exist_ok: two writers creating it at once both succeed.
  return db.createEmptyTable(CATALOG_TABLE, schema, { mode: "create", existOk: true });
}

export async function readEntry(db: Connection, name: string): Promise<CatalogEntry | null> {
  const r = await readRow(db, name);
  if (!r) return null;
  return {
    name: String(r.name),
    table: String(r.table),
    version: Number(r.version),
    embedder: embedderRecordSchema.parse(JSON.parse(String(r.embedder))),
    embedderState: JSON.parse(String(r.embedder_state)) as unknown,
    updatedAt: String(r.updated_at),
  };
}

/** Only where an index's current version lives (cheap: the embedder state can be megabytes). */
export async function readEntryVersion(
  db: Connection,
  name: string,
): Promise<{ table: string; version: number } | null> {
  const r = await readRow(db, name, ["table", "version"]);
  return r ? { table: String(r.table), version: Number(r.version) } : null;
}

async function readRow(db: Connection, name: string, columns?: string[]): Promise<Record<string, unknown> | null> {
  if (!(await db.tableNames()).includes(CATALOG_TABLE)) return null;
  const t = await db.openTable(CATALOG_TABLE);
  try {
    let q = t
      .query()
      .where(`name = ${sqlString(name)}`)
      .limit(1);
    if (columns) q = q.select(columns);
    return ((await q.toArray()) as Record<string, unknown>[])[0] ?? null;
  } finally {
    t.close();
  }
}

/** Insert or replace the entry: a single commit, so readers see the old entry or the new one. */
export async function writeEntry(db: Connection, entry: Omit<CatalogEntry, "updatedAt">): Promise<void> {
  const t = await catalogTable(db);
  try {
    await t
      .mergeInsert("name")
      .whenMatchedUpdateAll()
      .whenNotMatchedInsertAll()
      .execute([
        {
          name: entry.name,
          table: entry.table,
          version: entry.version,
          embedder: JSON.stringify(entry.embedder),
          embedder_state: JSON.stringify(entry.embedderState ?? null),
          updated_at: new Date().toISOString(),
        },
      ]);
  } finally {
    t.close();
  }
}

/**
 * Move the entry to `version` only if it still names `table` at `expectedVersion` (compare-and-set):
 * maintenance must not overwrite a writer that committed meanwhile. Returns whether it moved.
 */
export async function advanceEntry(
  db: Connection,
  entry: CatalogEntry,
  expectedVersion: number,
  version: number,
): Promise<boolean> {
  const t = await catalogTable(db);
  try {
    const result = await t
      .mergeInsert("name")
      .whenMatchedUpdateAll({
        where: `target.\`table\` = ${sqlString(entry.table)} AND target.version = ${Math.trunc(expectedVersion)}`,
      })
      .execute([
        {
          name: entry.name,
          table: entry.table,
          version,
          embedder: JSON.stringify(entry.embedder),
          embedder_state: JSON.stringify(entry.embedderState ?? null),
          updated_at: new Date().toISOString(),
        },
      ]);
    return result.numUpdatedRows > 0;
  } finally {
    t.close();
  }
}

export async function deleteEntry(db: Connection, name: string): Promise<void> {
  if (!(await db.tableNames()).includes(CATALOG_TABLE)) return;
  const t = await db.openTable(CATALOG_TABLE);
  try {
    await t.delete(`name = ${sqlString(name)}`);
  } finally {
    t.close();
  }
}

/** A new physical table for logical index `name`: the name, then a unique suffix, so a rebuild or a
 * copy fills a table of its own and the catalog switches to it in one write. */
export function physicalTableName(name: string): string {
  return `${name}--${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;
}
