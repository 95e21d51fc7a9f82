/** Where a snapshot lives on disk: DATA_DIR/projects/<projectId>/snapshots/<snapshotId>/{src,index}. */
import { rm } from "node:fs/promises";
import path from "node:path";
import type { Config } from "../config.ts";
import type { Logger } from "../logger.ts";
import { connect, dropIndex } from "../retrieval/store/index.ts";

export function snapshotDirs(dataDir: string, projectId: string, snapshotId: string) {
  const base = path.join(dataDir, "projects", projectId, "snapshots", snapshotId);
  return {
    base,
    src: path.join(base, "src"),
    index: path.join(base, "index"),
    symbols: path.join(base, "index", "symbols.sqlite"),
  };
}

/** Where LanceDB keeps the search indexes: LANCEDB_URI, by default DATA_DIR/lancedb (config.ts). */
export function searchStoreUri(config: Pick<Config, "lancedbUri">): string {
  return config.lancedbUri;
}

export function searchIndexName(snapshotId: string): string {
  return `snapshot_${snapshotId}`;
}

/** Best effort, after the rows are gone: a deleted project's snapshot files and search indexes. */
export async function dropProjectStorage(
  config: Pick<Config, "dataDir" | "lancedbUri">,
  projectId: string,
  snapshotIds: string[],
  log: Logger,
): Promise<void> {
  await rm(path.join(config.dataDir, "projects", projectId), { recursive: true, force: true });
  if (snapshotIds.length === 0) return;
  const store = await connect(searchStoreUri(config)).catch(() => null);
  if (!store) return;
  try {
    for (const id of snapshotIds)
      await dropIndex(store, searchIndexName(id)).catch((err: unknown) =>
        log.warn({ err, snapshotId: id }, "could not drop a deleted project's search index"),
      );
  } finally {
    store.close();
  }
}
