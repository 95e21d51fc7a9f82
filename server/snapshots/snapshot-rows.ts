/**
 * What every part of the snapshot service shares: its dependencies, and the rows it loads (a project,
 * a snapshot with the caller's role checked) and how a snapshot is shown.
 */
import { requireRole, type Actor } from "../auth/access.ts";
import type { Config } from "../config.ts";
import type { Db, Project, Snapshot } from "../db/client.ts";
import { notFound } from "../errors.ts";
import type { JobQueue } from "../jobs/queue.ts";
import type { Logger } from "../logger.ts";
import type { SecretBox } from "../lib/secret-box.ts";
import type { GitNetworkPolicy, ImportPathPolicy } from "../codebase/ingest/index.ts";
import type { IndexCache } from "../retrieval/store/index.ts";
import type { SnapshotSummary } from "./import.ts";

export type SnapshotView = Omit<Snapshot, "id" | "projectId" | "summary" | "createdById"> & {
  summary: SnapshotSummary | null;
  projectUid: string;
};

export interface SnapshotDeps {
  db: Db;
  config: Config;
  queue: JobQueue;
  log: Logger;
  searchIndexes: IndexCache;
  /** Seals git access tokens, stored for refreshes of the same origin. */
  tokens: SecretBox;
  gitPolicy: GitNetworkPolicy;
  pathPolicy: ImportPathPolicy;
}

export const snapshotView = (s: Snapshot, projectUid: string): SnapshotView => {
  const { id: _id, projectId: _p, summary, createdById: _c, ...rest } = s;
  return { ...rest, projectUid, summary: summary ? (JSON.parse(summary) as SnapshotSummary) : null };
};

export async function loadProject(db: Db, uid: string): Promise<Project> {
  const project = await db.project.findUnique({ where: { uid } });
  if (!project) throw notFound(`No project with id ${uid}. It may have been deleted.`);
  return project;
}

export async function loadSnapshot(db: Db, actor: Actor, uid: string) {
  const snapshot = await db.snapshot.findUnique({ where: { uid }, include: { project: true } });
  if (!snapshot) throw notFound(`No snapshot with id ${uid}.`);
  await requireRole(db, actor, snapshot.project.workspaceId, "viewer");
  return snapshot;
}
