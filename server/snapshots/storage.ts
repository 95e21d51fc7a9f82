/** Where a snapshot lives on disk: DATA_DIR/projects/<projectId>/snapshots/<snapshotId>/{src,index}. */
import path from "node:path";

export function snapshotDirs(dataDir: string, projectId: string, snapshotId: string) {
  const base = path.join(dataDir, "projects", projectId, "snapshots", snapshotId);
  return { base, src: path.join(base, "src"), index: path.join(base, "index"), symbols: path.join(base, "index", "symbols.sqlite") };
}

/** The LanceDB directory (one per data directory) and a snapshot's code-search index name in it. */
export function searchStoreUri(dataDir: string): string {
  return path.join(dataDir, "lancedb");
}

export function searchIndexName(snapshotId: string): string {
  return `snapshot_${snapshotId}`;
}
