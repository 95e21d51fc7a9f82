/**
 * What every part of the knowledge-base service shares: its dependencies, and the base rows it
 * loads (with the caller's role checked), shows with their counts, and marks indexing.
 */
import { requireRole, type Actor } from "../auth/access.ts";
import type { Config } from "../config.ts";
import type { Db, KnowledgeBase } from "../db/client.ts";
import { notFound } from "../errors.ts";
import type { EventBus } from "../events/bus.ts";
import type { Logger } from "../logger.ts";
import type { IndexCache } from "../retrieval/store/index.ts";
import { readChunking, type ChunkingSettings } from "./chunking.ts";
import type { KnowledgeIndexer } from "./job.ts";

export interface KnowledgeDeps {
  db: Db;
  config: Config;
  events: EventBus;
  log: Logger;
  searchIndexes: IndexCache;
  indexer: KnowledgeIndexer;
}

export interface BaseView {
  uid: string;
  name: string;
  description: string | null;
  chunking: ChunkingSettings;
  embedder: string;
  status: string;
  message: string | null;
  progress: number;
  createdAt: Date;
  updatedAt: Date;
  documents: number;
  /** Documents indexed and searchable. */
  readyDocuments: number;
  chunks: number;
  bytes: number;
}

export async function baseView(db: Db, base: KnowledgeBase): Promise<BaseView> {
  const [all, ready] = await Promise.all([
    db.knowledgeDocument.aggregate({ where: { knowledgeBaseId: base.id }, _count: true, _sum: { bytes: true } }),
    db.knowledgeDocument.aggregate({
      where: { knowledgeBaseId: base.id, status: "ready" },
      _count: true,
      _sum: { chunkCount: true },
    }),
  ]);
  const { id: _id, workspaceId: _w, chunking, ...rest } = base;
  return {
    ...rest,
    chunking: readChunking(chunking),
    documents: all._count,
    readyDocuments: ready._count,
    chunks: ready._sum.chunkCount ?? 0,
    bytes: all._sum.bytes ?? 0,
  };
}

export async function loadBase(db: Db, uid: string): Promise<KnowledgeBase> {
  const base = await db.knowledgeBase.findUnique({ where: { uid } });
  if (!base) throw notFound(`No knowledge base with id ${uid}. It may have been deleted.`);
  return base;
}

export async function loadBaseFor(
  db: Db,
  actor: Actor,
  uid: string,
  role: "viewer" | "member",
): Promise<KnowledgeBase> {
  const base = await loadBase(db, uid);
  await requireRole(db, actor, base.workspaceId, role);
  return base;
}

/** Shows "indexing" at once (the job may wait behind others), then runs the job. */
export async function scheduleIndexing(
  { db, indexer }: KnowledgeDeps,
  base: KnowledgeBase,
  message = "Waiting to index",
): Promise<void> {
  // A run already waiting or going keeps its progress bar; the indexer queues one more run.
  if (!indexer.busy(base.id))
    await db.knowledgeBase.update({ where: { id: base.id }, data: { status: "indexing", progress: 0, message } });
  indexer.schedule(base.id);
}
