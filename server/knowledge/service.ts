/**
 * Knowledge bases: named document collections owned by a workspace. Viewers list, read and search;
 * members create, upload, re-chunk, rebuild and delete. Uploads arrive through the upload route
 * (upload.ts) and are recorded here; parsing and indexing run in the queued job (job.ts).
 */
import { randomUUID } from "node:crypto";
import { mkdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { requireRole, type Actor } from "../auth/access.ts";
import type { Config } from "../config.ts";
import { isUniqueViolation, type Db, type KnowledgeBase, type KnowledgeDocument } from "../db/client.ts";
import { conflict, notFound } from "../errors.ts";
import type { EventBus } from "../events/bus.ts";
import type { JobQueue } from "../jobs/queue.ts";
import type { Logger } from "../logger.ts";
import type { IndexCache } from "../retrieval/store/index.ts";
import { chunkingSchema, DEFAULT_CHUNKING, readChunking, type ChunkingSettings } from "./chunking.ts";
import { kbRoom } from "../shared/rooms.ts";
import { createKnowledgeIndexer } from "./job.ts";
import { kindOf, MIME, unsupportedMessage } from "./parse/index.ts";
import { searchKnowledgeBase } from "./search.ts";
import { dropBaseStorage, documentPaths } from "./storage.ts";

export const MAX_DOCUMENTS_PER_BASE = 10_000;

const baseName = z
  .string()
  .trim()
  .min(1, "Give the knowledge base a name.")
  .max(120, "Keep the name under 120 characters.");
const description = z.string().trim().max(2000, "Keep the description under 2,000 characters.");

export const createBaseInput = z.object({
  workspaceId: z.string().min(1),
  name: baseName,
  description: description.optional(),
  chunking: chunkingSchema.optional(),
  // "hash" was the only value before the local embedder replaced it: still accepted, built as local.
  embedder: z
    .enum(["local", "hash"], { error: 'Knowledge bases use the built-in "local" embedder for now.' })
    .default("local")
    .transform(() => "local" as const),
});
export const updateBaseInput = z.object({
  uid: z.uuid("uid must be a UUID"),
  name: baseName.optional(),
  description: description.nullable().optional(),
});
export const chunkingInput = z.object({ uid: z.uuid("uid must be a UUID"), chunking: chunkingSchema });
export const searchInput = z.object({
  uid: z.uuid("uid must be a UUID"),
  query: z.string().max(8192, "Keep the query under 8,192 characters."),
  mode: z.enum(["hybrid", "fulltext", "vector"]).default("hybrid"),
  k: z.number().int().min(1).max(100).default(10),
});

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

export type DocumentView = Omit<KnowledgeDocument, "id" | "knowledgeBaseId">;

export interface KnowledgeHit {
  documentUid: string;
  documentName: string;
  title: string | null;
  startLine: number;
  endLine: number;
  snippet: string;
  score: number;
  scores: { vector?: number; fulltext?: number };
}

/** A file received by the upload route, already on disk under the base's incoming/ folder. */
export interface ReceivedFile {
  name: string;
  path: string;
  bytes: number;
  sha256: string;
}

export interface UploadOutcome {
  documents: DocumentView[];
  /** Files not added, each with the reason (duplicates, too large, over the base's limit). */
  rejected: { name: string; reason: "duplicate" | "too_large" | "limit"; message: string }[];
}

const documentView = ({ id: _id, knowledgeBaseId: _b, ...rest }: KnowledgeDocument): DocumentView => rest;

export function createKnowledgeService(deps: {
  db: Db;
  config: Config;
  queue: JobQueue;
  events: EventBus;
  log: Logger;
  searchIndexes: IndexCache;
}) {
  const { db, config, log } = deps;
  const indexer = createKnowledgeIndexer(deps);

  async function view(base: KnowledgeBase): Promise<BaseView> {
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

  async function load(uid: string): Promise<KnowledgeBase> {
    const base = await db.knowledgeBase.findUnique({ where: { uid } });
    if (!base) throw notFound(`No knowledge base with id ${uid}. It may have been deleted.`);
    return base;
  }

  async function loadFor(actor: Actor, uid: string, role: "viewer" | "member"): Promise<KnowledgeBase> {
    const base = await load(uid);
    await requireRole(db, actor, base.workspaceId, role);
    return base;
  }

  /** Shows "indexing" at once (the job may wait behind others), then runs the job. */
  async function scheduleIndexing(base: KnowledgeBase, message = "Waiting to index"): Promise<void> {
    // A run already waiting or going keeps its progress bar; the indexer queues one more run.
    if (!indexer.busy(base.id))
      await db.knowledgeBase.update({ where: { id: base.id }, data: { status: "indexing", progress: 0, message } });
    indexer.schedule(base.id);
  }

  const nameTaken = (name: string) =>
    conflict(`A knowledge base named “${name}” already exists in this workspace. Choose another name.`);

  return {
    /** At start-up: bases whose indexing a restart cut off are indexed again (everything they need
     * is on disk). Returns how many. */
    async recoverInterrupted(): Promise<number> {
      const stuck = await db.knowledgeBase.findMany({ where: { status: "indexing" }, select: { id: true } });
      for (const b of stuck) indexer.schedule(b.id);
      return stuck.length;
    },

    async list(actor: Actor, workspaceId: string): Promise<BaseView[]> {
      await requireRole(db, actor, workspaceId, "viewer");
      const rows = await db.knowledgeBase.findMany({
        where: { workspaceId },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      });
      return Promise.all(rows.map(view));
    },

    async get(actor: Actor, uid: string): Promise<BaseView> {
      return view(await loadFor(actor, uid, "viewer"));
    },

    async create(actor: Actor, input: z.infer<typeof createBaseInput>): Promise<BaseView> {
      await requireRole(db, actor, input.workspaceId, "member");
      try {
        const base = await db.knowledgeBase.create({
          data: {
            uid: randomUUID(),
            workspaceId: input.workspaceId,
            name: input.name,
            description: input.description || null,
            chunking: JSON.stringify(input.chunking ?? DEFAULT_CHUNKING),
            embedder: input.embedder,
          },
        });
        return view(base);
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken(input.name);
        throw err;
      }
    },

    async update(actor: Actor, input: z.infer<typeof updateBaseInput>): Promise<BaseView> {
      const base = await loadFor(actor, input.uid, "member");
      try {
        const data: { name?: string; description?: string | null } = {};
        if (input.name !== undefined) data.name = input.name;
        if (input.description !== undefined) data.description = input.description || null;
        return view(await db.knowledgeBase.update({ where: { id: base.id }, data }));
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken(input.name ?? base.name);
        throw err;
      }
    },

    /** The base, its documents, its files on disk, its index and its event room. */
    async remove(actor: Actor, uid: string): Promise<void> {
      const base = await loadFor(actor, uid, "member");
      await db.knowledgeBase.delete({ where: { id: base.id } });
      await dropBaseStorage(config, base.id, log);
      await deps.events.deleteRoom(kbRoom(base.uid));
    },

    async documents(actor: Actor, uid: string): Promise<DocumentView[]> {
      const base = await loadFor(actor, uid, "viewer");
      const rows = await db.knowledgeDocument.findMany({
        where: { knowledgeBaseId: base.id },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: MAX_DOCUMENTS_PER_BASE,
      });
      return rows.map(documentView);
    },

    async removeDocument(actor: Actor, documentUid: string): Promise<void> {
      const doc = await db.knowledgeDocument.findUnique({
        where: { uid: documentUid },
        include: { knowledgeBase: true },
      });
      if (!doc) throw notFound(`No document with id ${documentUid}. It may have been deleted already.`);
      await requireRole(db, actor, doc.knowledgeBase.workspaceId, "member");
      await db.knowledgeDocument.delete({ where: { id: doc.id } });
      const paths = documentPaths(config.dataDir, doc.knowledgeBaseId, doc.id, doc.name);
      await rm(paths.original, { force: true });
      await rm(paths.text, { force: true });
      // Only what was indexed (or about to be) needs the index rebuilt; searches skip the deleted
      // document's chunks meanwhile.
      if (doc.status === "ready" || doc.status === "pending")
        await scheduleIndexing(doc.knowledgeBase, "Removing a document from the index");
    },

    /** New chunking settings: saved, then every document is re-chunked (not re-parsed). */
    async setChunking(actor: Actor, input: z.infer<typeof chunkingInput>): Promise<BaseView> {
      const base = await loadFor(actor, input.uid, "member");
      const updated = await db.knowledgeBase.update({
        where: { id: base.id },
        data: { chunking: JSON.stringify(input.chunking) },
      });
      if (
        await db.knowledgeDocument.count({ where: { knowledgeBaseId: base.id, status: { in: ["pending", "ready"] } } })
      )
        await scheduleIndexing(updated, "Waiting to re-chunk");
      return view(await load(base.uid));
    },

    async rebuild(actor: Actor, uid: string): Promise<BaseView> {
      const base = await loadFor(actor, uid, "member");
      await scheduleIndexing(base);
      return view(await load(uid));
    },

    async search(actor: Actor, input: z.infer<typeof searchInput>): Promise<KnowledgeHit[]> {
      const base = await loadFor(actor, input.uid, "viewer");
      const [hits] = await searchKnowledgeBase(deps, base, [input.query], {
        mode: input.mode,
        k: input.k,
        subject: "This knowledge base",
      });
      return hits!.map((r) => ({
        documentUid: r.file,
        documentName: r.documentName,
        title: r.symbolPath,
        startLine: r.startLine,
        endLine: r.endLine,
        snippet: r.snippet,
        score: r.score,
        scores: r.scores,
      }));
    },

    /** For the upload route: the base, after checking the actor may add documents to it. */
    async baseForUpload(actor: Actor, uid: string): Promise<KnowledgeBase> {
      return loadFor(actor, uid, "member");
    },

    /**
     * Records received files: unsupported types as skipped documents (the reason shown, the bytes
     * dropped), duplicates (same bytes already in this base) rejected, the rest kept and queued for
     * indexing. Takes ownership of the received files (moved or removed).
     */
    async addDocuments(
      base: KnowledgeBase,
      files: ReceivedFile[],
      tooLarge: { name: string; message: string }[] = [],
    ): Promise<UploadOutcome> {
      const outcome: UploadOutcome = {
        documents: [],
        rejected: tooLarge.map((t) => ({ ...t, reason: "too_large" as const })),
      };
      let count = await db.knowledgeDocument.count({ where: { knowledgeBaseId: base.id } });
      let queued = false;
      for (const file of files) {
        try {
          if (count >= MAX_DOCUMENTS_PER_BASE) {
            outcome.rejected.push({
              name: file.name,
              reason: "limit",
              message: `${file.name}: this knowledge base already holds ${MAX_DOCUMENTS_PER_BASE.toLocaleString("en")} documents, the limit. Create another base for more.`,
            });
            continue;
          }
          const existing = await db.knowledgeDocument.findUnique({
            where: { knowledgeBaseId_sha256: { knowledgeBaseId: base.id, sha256: file.sha256 } },
          });
          if (existing) {
            outcome.rejected.push({
              name: file.name,
              reason: "duplicate",
              message: duplicateMessage(file.name, existing),
            });
            continue;
          }
          const kind = kindOf(file.name);
          let doc: KnowledgeDocument;
          try {
            doc = await db.knowledgeDocument.create({
              data: {
                uid: randomUUID(),
                knowledgeBaseId: base.id,
                name: file.name,
                mime: kind ? MIME[kind] : "application/octet-stream",
                bytes: file.bytes,
                sha256: file.sha256,
                status: kind ? "pending" : "skipped",
                message: kind ? null : unsupportedMessage(file.name),
              },
            });
          } catch (err) {
            // The same bytes arrived in a concurrent upload a moment ago.
            if (!isUniqueViolation(err)) throw err;
            const twin = await db.knowledgeDocument.findUnique({
              where: { knowledgeBaseId_sha256: { knowledgeBaseId: base.id, sha256: file.sha256 } },
            });
            outcome.rejected.push({ name: file.name, reason: "duplicate", message: duplicateMessage(file.name, twin) });
            continue;
          }
          count++;
          if (kind) {
            const target = documentPaths(config.dataDir, base.id, doc.id, doc.name).original;
            await mkdir(path.dirname(target), { recursive: true });
            await rename(file.path, target).catch(async (err: unknown) => {
              await db.knowledgeDocument.delete({ where: { id: doc.id } });
              throw err;
            });
            queued = true;
          }
          outcome.documents.push(documentView(doc));
        } finally {
          await rm(file.path, { force: true });
        }
      }
      if (queued) await scheduleIndexing(base, "Waiting to read the new documents");
      return outcome;
    },

    busy: (base: KnowledgeBase) => indexer.busy(base.id),
    /** The "knowledge.index" job, registered by the composition root. */
    indexJob: indexer.job,
  };
}

function duplicateMessage(name: string, existing: { name: string; status: string } | null): string {
  if (!existing) return `${name} is already in this base.`;
  const as = existing.name === name ? "" : ` (as “${existing.name}”)`;
  const state =
    existing.status === "skipped" || existing.status === "failed"
      ? `, marked ${existing.status}; delete it first to upload it again`
      : "";
  return `${name} is already in this base${as}${state}.`;
}

export type KnowledgeService = ReturnType<typeof createKnowledgeService>;
