/**
 * A logical index started as a copy of another one: the source's physical table is copied on disk
 * under a table of the new name, and the catalog gets an entry naming it at the source's complete
 * version, with the source's embedder and fitted state — so the copy is, for every reader and writer,
 * the source index under another name. A push's snapshot starts from its parent's index this way and
 * then only its changed files are re-indexed (../seed-index.ts).
 *
 * Why a file copy: LanceDB 0.31's `cloneTable` is shallow only (the clone reads the source's data
 * files, and the source is dropped when its snapshot goes) and tables cannot be renamed. Lance never
 * rewrites a data, index or manifest file in place, so a copy of the directory is a consistent table
 * as long as it includes the version the catalog names (written before the catalog pointed at it).
 * Copy-on-write clones are used where the filesystem has them.
 */
import { constants } from "node:fs";
import { cp, rm } from "node:fs/promises";
import path from "node:path";
import { physicalTableName, readEntry, writeEntry } from "./catalog.ts";
import { assertIndexName, type Store } from "./connect.ts";

/** A URI with a scheme (s3://, gs://, az://, db://, memory://) is not a directory this process can copy. */
const REMOTE = /^[a-z][a-z0-9+.-]*:\/\//i;

/** The directory holding a table of a local store. */
const tableDir = (store: Store, table: string) => path.join(store.uri, `${table}.lance`);

/**
 * Makes index `to` a copy of index `from`. Throws (leaving nothing behind) when `from` does not exist,
 * `to` already does, or the store is not a local directory; the caller then builds `to` in full.
 * Returns the copy's row count.
 */
export async function copyIndex(store: Store, from: string, to: string): Promise<{ rows: number }> {
  assertIndexName(from);
  assertIndexName(to);
  if (REMOTE.test(store.uri)) throw new Error(`The search store ${store.uri} is not a local directory.`);
  const source = await readEntry(store.db, from);
  if (!source) throw new Error(`Index "${from}" does not exist.`);
  if (await readEntry(store.db, to)) throw new Error(`Index "${to}" already exists.`);
  const physical = physicalTableName(to);
  const target = tableDir(store, physical);
  try {
    await cp(tableDir(store, source.table), target, {
      recursive: true,
      errorOnExist: true,
      force: false,
      mode: constants.COPYFILE_FICLONE,
    });
    // Open it at the catalog's version before pointing at it: a copy that does not read is never used.
    const table = await store.db.openTable(physical);
    let rows: number;
    try {
      await table.checkout(source.version);
      rows = await table.countRows();
    } finally {
      table.close();
    }
    await writeEntry(store.db, {
      name: to,
      table: physical,
      version: source.version,
      embedder: source.embedder,
      embedderState: source.embedderState,
    });
    return { rows };
  } catch (error) {
    await store.db.dropTable(physical).catch(() => undefined);
    await rm(target, { recursive: true, force: true });
    throw error;
  }
}
