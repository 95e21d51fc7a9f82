/**
 * Test support: change a physical table behind the catalog's back, as a writer in another process
 * that died midway (or a compaction running beside a reader) would. Tests outside the store use this
 * instead of importing LanceDB themselves.
 */
import { connect as lanceConnect } from "@lancedb/lancedb";
import type { Store } from "./connect.ts";

/** Deletes rows from the newest physical table of a logical index (optionally compacting after). */
export async function deleteRowsBehindCatalog(
  store: Store,
  indexName: string,
  where: string,
  options: { optimize?: boolean } = {},
): Promise<void> {
  // A connection of its own, like another process.
  const raw = await lanceConnect(store.uri);
  try {
    const physical = (await raw.tableNames()).filter((t) => t.startsWith(`${indexName}--`)).sort();
    if (physical.length === 0) throw new Error(`no physical table for index "${indexName}"`);
    const table = await raw.openTable(physical[physical.length - 1]!);
    try {
      await table.delete(where);
      if (options.optimize) await table.optimize();
    } finally {
      table.close();
    }
  } finally {
    raw.close();
  }
}
