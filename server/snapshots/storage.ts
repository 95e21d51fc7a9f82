/** Where a snapshot lives on disk: DATA_DIR/projects/<projectId>/snapshots/<snapshotId>/{src,index}. */
import { rm } from "node:fs/promises";
import path from "node:path";
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

/** The LanceDB directory (one per data directory) and a snapshot's code-search index name in it. */
export function searchStoreUri(dataDir: string): string {
  return path.join(dataDir, "lancedb");
}

export function searchIndexName(snapshotId: string): string {
  return `snapshot_${snapshotId}`;
}

/** Best effort, after the rows are gone: a deleted project's snapshot files and search indexes. */
export async function dropProjectStorage(
  dataDir: string,
  projectId: string,
  snapshotIds: string[],
  log: Logger,
): Promise<void> {
  await rm(path.join(dataDir, "projects", projectId), { recursive: true, force: true });
  if (snapshotIds.length === 0) return;
  const store = await connect(searchStoreUri(dataDir)).catch(() => null);
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
