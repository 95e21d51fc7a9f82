/**
 * How an import that did not finish ends: marked failed with its files and half-built search index
 * removed (the previous snapshot stays current), and the imports a restart cut off.
 */
import { rm } from "node:fs/promises";
import { connect, dropIndex } from "../retrieval/store/index.ts";
import type { SnapshotDeps } from "./snapshot-rows.ts";
import { searchIndexName, searchStoreUri, snapshotDirs } from "./storage.ts";

export const SNAPSHOT_DONE = ["ready", "failed"] as const;

/** Best effort: a half-built search index of a failed import is removed. */
async function dropSearchIndex({ config, log }: SnapshotDeps, snapshotId: string): Promise<void> {
  const store = await connect(searchStoreUri(config)).catch(() => null);
  if (!store) return;
  try {
    await dropIndex(store, searchIndexName(snapshotId));
  } catch (err) {
    log.warn({ err }, "could not drop a failed import's search index");
  } finally {
    store.close();
  }
}

/** Marks an import failed (files removed); the previous snapshot, if any, stays current. */
export async function failImport(d: SnapshotDeps, snapshotId: string, message: string): Promise<void> {
  // Snapshot and project change together: a reader never sees a failed import on a project still "ingesting".
  const s = await d.db.$transaction(async (tx) => {
    const failed = await tx.snapshot.update({
      where: { id: snapshotId },
      data: { status: "failed", message, finishedAt: new Date() },
    });
    const project = await tx.project.findUniqueOrThrow({ where: { id: failed.projectId } });
    await tx.project.update({
      where: { id: project.id },
      data: { status: project.currentSnapshotId ? "ready" : "failed" },
    });
    return failed;
  });
  await rm(snapshotDirs(d.config.dataDir, s.projectId, s.id).base, { recursive: true, force: true });
  await dropSearchIndex(d, s.id);
}

/** On start (in-process queue only): imports cut off by a restart are marked failed and their partial files removed. */
export async function recoverInterruptedImports({ db, config }: SnapshotDeps): Promise<number> {
  const stuck = await db.snapshot.findMany({ where: { status: { notIn: [...SNAPSHOT_DONE] } } });
  for (const s of stuck) {
    await rm(snapshotDirs(config.dataDir, s.projectId, s.id).base, { recursive: true, force: true });
    await db.snapshot.update({
      where: { id: s.id },
      data: {
        status: "failed",
        message: "Interrupted by a server restart. Import the code again.",
        finishedAt: new Date(),
      },
    });
    await db.project.update({ where: { id: s.projectId }, data: { status: "failed" } });
  }
  return stuck.length;
}
