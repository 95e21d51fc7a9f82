/**
 * A snapshot's search index started from the index of the snapshot it was derived from (a push onto
 * the last reviewed commit, server/forges/head-import.ts): the parent's index is copied under the
 * new name (store/copy.ts), then indexSnapshot updates it like any re-index — by content hash, so
 * only the files that differ are re-chunked and embedded, removed files are dropped, and a change of
 * more than REFIT_SHARE of the files (or another embedder) still rebuilds and refits in full. Which
 * files differ is read from the files themselves, never from the push: the copy answers for the new
 * tree exactly as an in-place update of the parent's index would.
 *
 * Seeding is only a shortcut. When the copy cannot be made (no parent index, a remote store) or the
 * update of the copy fails, the copy is dropped and the index is built from scratch; the outcome says
 * why, for the caller's log.
 */
import {
  indexSnapshot,
  type IndexSnapshotOptions,
  type IndexSnapshotResult,
  type SnapshotFile,
} from "./index-snapshot.ts";
import { copyIndex, dropIndex, openChunkIndex, type Store } from "./store/index.ts";

export type SeedOutcome = { seeded: true; rows: number; ms: number } | { seeded: false; reason: string };

/** indexSnapshot, started from a copy of index `seedFrom` when given. */
export async function indexSnapshotSeeded(
  store: Store,
  name: string,
  root: string,
  files: SnapshotFile[],
  options: IndexSnapshotOptions & { seedFrom?: string } = {},
): Promise<IndexSnapshotResult & { seed?: SeedOutcome }> {
  const { seedFrom, ...indexOptions } = options;
  // Already there (an earlier attempt of the same import, taken over): it is updated in place.
  if (!seedFrom || (await exists(store, name))) return indexSnapshot(store, name, root, files, indexOptions);
  const seed = await copyFrom(store, seedFrom, name);
  try {
    return { ...(await indexSnapshot(store, name, root, files, indexOptions)), seed };
  } catch (error) {
    if (!seed.seeded) throw error;
    // The copy itself may be what failed to update: start over without it.
    await dropIndex(store, name).catch(() => undefined);
    const reason = `updating the copy of "${seedFrom}" failed (${message(error)})`;
    return { ...(await indexSnapshot(store, name, root, files, indexOptions)), seed: { seeded: false, reason } };
  }
}

async function copyFrom(store: Store, from: string, to: string): Promise<SeedOutcome> {
  const started = performance.now();
  try {
    const { rows } = await copyIndex(store, from, to);
    return { seeded: true, rows, ms: Math.round(performance.now() - started) };
  } catch (error) {
    return { seeded: false, reason: `copying "${from}" failed (${message(error)})` };
  }
}

async function exists(store: Store, name: string): Promise<boolean> {
  const index = await openChunkIndex(store, name);
  index?.close();
  return index !== null;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
