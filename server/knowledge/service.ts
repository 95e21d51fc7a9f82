/**
 * Knowledge bases: named document collections owned by a workspace. Viewers list, read and search;
 * members create, upload, re-chunk, rebuild and delete. Uploads arrive through the upload route
 * (upload.ts) and are recorded here; parsing and indexing run in the queued job (job.ts).
 *
 * This file only composes the parts, each in its own module over the shared KnowledgeDeps (rows.ts):
 * bases.ts (the bases themselves), documents.ts (their documents and uploads); inputs in inputs.ts.
 */
import type { MatchLabel } from "../shared/search-match.ts";
import type { z } from "zod";
import type { Actor } from "../auth/access.ts";
import type { Config } from "../config.ts";
import type { Db, KnowledgeBase } from "../db/client.ts";
import type { EventBus } from "../events/bus.ts";
import type { JobQueue } from "../jobs/queue.ts";
import type { Logger } from "../logger.ts";
import type { IndexCache } from "../retrieval/store/index.ts";
import {
  createBase,
  getBase,
  listBases,
  rebuildBase,
  recoverInterrupted,
  removeBase,
  setChunking,
  updateBase,
} from "./bases.ts";
import { addDocuments, listDocuments, removeDocument, type ReceivedFile } from "./documents.ts";
import type * as In from "./inputs.ts";
import { createKnowledgeIndexer } from "./job.ts";
import { loadBaseFor, type KnowledgeDeps } from "./rows.ts";
import { searchKnowledgeBase } from "./search.ts";

export { chunkingInput, createBaseInput, searchInput, updateBaseInput } from "./inputs.ts";
export { MAX_DOCUMENTS_PER_BASE, type DocumentView, type ReceivedFile, type UploadOutcome } from "./documents.ts";
export type { BaseView } from "./rows.ts";

export interface KnowledgeHit {
  documentUid: string;
  documentName: string;
  title: string | null;
  startLine: number;
  endLine: number;
  snippet: string;
  score: number;
  scores: { vector?: number; fulltext?: number };
  /** Calibrated relevance and its label (server/retrieval/relevance.ts). */
  relevance: number;
  match: MatchLabel;
}

export function createKnowledgeService(deps: {
  db: Db;
  config: Config;
  queue: JobQueue;
  events: EventBus;
  log: Logger;
  searchIndexes: IndexCache;
}) {
  const indexer = createKnowledgeIndexer(deps);
  const d: KnowledgeDeps = {
    db: deps.db,
    config: deps.config,
    events: deps.events,
    log: deps.log,
    searchIndexes: deps.searchIndexes,
    indexer,
  };

  return {
    /** At start-up: bases whose indexing a restart cut off are indexed again (everything they need
     * is on disk). Returns how many. */
    recoverInterrupted: () => recoverInterrupted(d),

    list: (actor: Actor, workspaceId: string) => listBases(d, actor, workspaceId),
    get: (actor: Actor, uid: string) => getBase(d, actor, uid),
    create: (actor: Actor, input: z.infer<typeof In.createBaseInput>) => createBase(d, actor, input),
    update: (actor: Actor, input: z.infer<typeof In.updateBaseInput>) => updateBase(d, actor, input),
    /** The base, its documents, its files on disk, its index and its event room. */
    remove: (actor: Actor, uid: string) => removeBase(d, actor, uid),

    documents: (actor: Actor, uid: string) => listDocuments(d, actor, uid),
    removeDocument: (actor: Actor, documentUid: string) => removeDocument(d, actor, documentUid),

    /** New chunking settings: saved, then every document is re-chunked (not re-parsed). */
    setChunking: (actor: Actor, input: z.infer<typeof In.chunkingInput>) => setChunking(d, actor, input),
    rebuild: (actor: Actor, uid: string) => rebuildBase(d, actor, uid),

    async search(actor: Actor, input: z.infer<typeof In.searchInput>): Promise<KnowledgeHit[]> {
      const base = await loadBaseFor(d.db, actor, input.uid, "viewer");
      const [hits] = await searchKnowledgeBase(d, base, [input.query], {
        mode: input.mode,
        k: input.k,
        subject: "This knowledge base",
        cut: true,
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
        relevance: r.relevance,
        match: r.match,
      }));
    },

    /** For the upload route: the base, after checking the actor may add documents to it. */
    baseForUpload: (actor: Actor, uid: string): Promise<KnowledgeBase> => loadBaseFor(d.db, actor, uid, "member"),

    /**
     * Records received files: unsupported types as skipped documents (the reason shown, the bytes
     * dropped), duplicates (same bytes already in this base) rejected, the rest kept and queued for
     * indexing. Takes ownership of the received files (moved or removed).
     */
    addDocuments: (base: KnowledgeBase, files: ReceivedFile[], tooLarge?: { name: string; message: string }[]) =>
      addDocuments(d, base, files, tooLarge),

    busy: (base: KnowledgeBase) => indexer.busy(base.id),
    /** The "knowledge.index" job, registered by the composition root. */
    indexJob: indexer.job,
  };
}

export type KnowledgeService = ReturnType<typeof createKnowledgeService>;
