/**
 * The indexing job of a knowledge base: parse the documents not parsed yet (their text is kept, so a
 * re-chunk never parses again), then rebuild the base's index from every readable document.
 * Progress (0–1) goes to the base row, throttled and in order, and as events to room `kb:<uid>`:
 *   kb.progress {status, progress, message} · kb.document {uid, name, status, message, chunkCount}
 *   kb.indexed {documents, chunks, ms} · kb.failed {message}
 * A refusal marks that one document skipped/failed; a failed build marks the base failed and leaves
 * its previous index searchable (the write is all-or-nothing, see build.ts).
 *
 * One run per base at a time: a change while a run is going (another upload, a delete) schedules
 * exactly one more run after it; changes while one is waiting ride along with it. (In-process this
 * file keeps the books; a shared queue does it with a dedupe key.)
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { throttledProgress } from "../jobs/throttled-progress.ts";
import type { Config } from "../config.ts";
import type { Db, KnowledgeBase, KnowledgeDocument } from "../db/client.ts";
import { publicError } from "../errors-public.ts";
import type { EventBus } from "../events/bus.ts";
import { kbRoom } from "../shared/rooms.ts";
import type { JobQueue } from "../jobs/queue.ts";
import type { JobRegistration } from "../jobs/registry.ts";
import type { Logger } from "../logger.ts";
import { connect, dropIndex } from "../retrieval/store/index.ts";
import { buildBaseIndex, type SourceText } from "./build.ts";
import { readChunking } from "./chunking.ts";
import { parseDocument, ParseRefusal, statusForRefusal } from "./parse/index.ts";
import { documentPaths, dropBaseStorage, knowledgeIndexName, searchStoreUri } from "./storage.ts";

const PROGRESS_EVERY_MS = 500;

const storedTextSchema = z.object({ kind: z.string(), title: z.string().nullable(), text: z.string() });

export interface KnowledgeIndexer {
  /** Run (or re-run) indexing for the base soon. */
  schedule(baseId: string): void;
  /** Whether a run for the base is waiting or going. */
  busy(baseId: string): boolean;
  /** The "knowledge.index" job, for the composition root to register (server/jobs/registry.ts). */
  job: JobRegistration<"knowledge.index">;
}

export function createKnowledgeIndexer(deps: {
  db: Db;
  config: Config;
  log: Logger;
  events: EventBus;
  queue: JobQueue;
}): KnowledgeIndexer {
  const { db, config, log, events, queue } = deps;
  const queued = new Set<string>();
  const running = new Set<string>();
  const again = new Set<string>();

  function schedule(baseId: string) {
    // A shared queue keeps the same books across nodes: one job per base waiting, one more after a
    // running one (its dedupe key); indexing is idempotent, so a job taken over just runs again.
    if (queue.durable) {
      queue
        .enqueue("knowledge.index", { baseId }, { dedupeKey: `kb-${baseId}` })
        .catch((err: unknown) => log.error({ err, baseId }, "could not queue knowledge-base indexing"));
      return;
    }
    if (running.has(baseId)) again.add(baseId);
    else if (!queued.has(baseId)) {
      queued.add(baseId);
      void queue.enqueue("knowledge.index", { baseId });
    }
  }

  const job: JobRegistration<"knowledge.index"> = {
    handler: async ({ baseId }) => {
      queued.delete(baseId);
      running.add(baseId);
      try {
        await indexBase(baseId);
      } finally {
        running.delete(baseId);
        if (again.delete(baseId)) schedule(baseId);
      }
    },
    options: {
      concurrency: 1,
      abandoned: async ({ baseId }) => {
        const message =
          "Indexing stopped twice because the worker running it ended. Search still uses the previous index; upload or re-chunk to index again.";
        const base = await db.knowledgeBase.findUnique({ where: { id: baseId } });
        if (base?.status !== "indexing") return;
        await db.knowledgeBase.updateMany({ where: { id: baseId }, data: { status: "failed", message } });
        await events.publish(kbRoom(base.uid), { type: "kb.failed", payload: { message } });
      },
    },
  };

  /** Progress: the row and an event, throttled (server/jobs/throttled-progress.ts). */
  function progressWriter(base: KnowledgeBase) {
    const report = throttledProgress(
      async ({ progress, message }: { progress: number; message: string }) => {
        const p = Math.max(0, Math.min(1, progress));
        await db.knowledgeBase.updateMany({
          where: { id: base.id },
          data: { status: "indexing", progress: p, message },
        });
        await events.publish(kbRoom(base.uid), {
          type: "kb.progress",
          payload: { status: "indexing", progress: p, message },
        });
      },
      (err) => log.warn({ err }, "knowledge base progress update failed"),
      PROGRESS_EVERY_MS,
    );
    return Object.assign((progress: number, message: string, force = false) => report({ progress, message }, force), {
      settle: report.settle,
    });
  }

  async function documentEvent(
    base: KnowledgeBase,
    doc: Pick<KnowledgeDocument, "uid" | "name" | "status" | "message" | "chunkCount">,
  ) {
    await events.publish(kbRoom(base.uid), {
      type: "kb.document",
      payload: { uid: doc.uid, name: doc.name, status: doc.status, message: doc.message, chunkCount: doc.chunkCount },
    });
  }

  /** Parses a document once; returns false (and records why) when it yields no text. */
  async function ensureText(base: KnowledgeBase, doc: KnowledgeDocument): Promise<boolean> {
    const paths = documentPaths(config.dataDir, base.id, doc.id, doc.name);
    if (
      await readFile(paths.text).then(
        () => true,
        () => false,
      )
    )
      return true;
    let status: "skipped" | "failed";
    let message: string;
    try {
      const bytes = await readFile(paths.original);
      const parsed = await parseDocument(doc.name, bytes);
      await mkdir(path.dirname(paths.text), { recursive: true });
      await writeFile(paths.text, JSON.stringify({ kind: parsed.kind, title: parsed.title, text: parsed.text }));
      return true;
    } catch (err) {
      if (err instanceof ParseRefusal) {
        status = statusForRefusal(err.reason);
        message = err.message;
      } else if ((err as NodeJS.ErrnoException).code === "ENOENT") {
        status = "failed";
        message = `${doc.name}: the uploaded file is missing on the server. Delete it and upload it again.`;
      } else {
        status = "failed";
        message = publicError(err, { doing: `reading ${doc.name}`, log, context: { document: doc.uid } }).message;
      }
    }
    // Nothing more can be done with the file: keep the record (with the reason), not the bytes.
    await rm(paths.original, { force: true });
    await db.knowledgeDocument.updateMany({ where: { id: doc.id }, data: { status, message, chunkCount: 0 } });
    await documentEvent(base, { ...doc, status, message, chunkCount: 0 });
    return false;
  }

  async function loadText(base: KnowledgeBase, doc: KnowledgeDocument): Promise<SourceText> {
    const raw = await readFile(documentPaths(config.dataDir, base.id, doc.id, doc.name).text, "utf8").catch(
      (err: NodeJS.ErrnoException) => {
        // Deleted while this run was going: it contributes nothing (the delete scheduled another run).
        if (err.code === "ENOENT") return null;
        throw err;
      },
    );
    if (raw === null)
      return { documentUid: doc.uid, name: doc.name, kind: "text", sha256: doc.sha256, title: null, text: "" };
    const stored = storedTextSchema.parse(JSON.parse(raw));
    return {
      documentUid: doc.uid,
      name: doc.name,
      kind: stored.kind,
      sha256: doc.sha256,
      title: stored.title,
      text: stored.text,
    };
  }

  /** A base deleted while its run went on: whatever the run wrote (text files, index, events) is removed. */
  async function removedMeanwhile(base: KnowledgeBase): Promise<boolean> {
    if (await db.knowledgeBase.findUnique({ where: { id: base.id }, select: { id: true } })) return false;
    await dropBaseStorage(config, base.id, log);
    await events.deleteRoom(kbRoom(base.uid));
    return true;
  }

  async function indexBase(baseId: string): Promise<void> {
    const base = await db.knowledgeBase.findUnique({ where: { id: baseId } });
    if (!base) return;
    const started = Date.now();
    const report = progressWriter(base);
    const store = await connect(searchStoreUri(config));
    try {
      report(0, "Reading documents", true);
      const docs = await db.knowledgeDocument.findMany({
        where: { knowledgeBaseId: base.id, status: { in: ["pending", "ready"] } },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      });
      const usable: KnowledgeDocument[] = [];
      for (const [i, doc] of docs.entries()) {
        if (await ensureText(base, doc)) usable.push(doc);
        report((0.3 * (i + 1)) / docs.length, `Read ${i + 1} of ${docs.length} documents`);
      }

      const settings = readChunking(base.chunking);
      const name = knowledgeIndexName(base.id);
      let chunks = 0;
      let chunksByDocument = new Map<string, number>();
      if (usable.length === 0) {
        await dropIndex(store, name);
      } else {
        const built = await buildBaseIndex(
          store,
          name,
          usable.map((d) => ({ uid: d.uid, load: () => loadText(base, d) })),
          settings,
          (f, message) => report(0.3 + 0.7 * f, message),
        );
        chunks = built.rows;
        chunksByDocument = built.chunksByDocument;
      }
      await report.settle();
      if (await removedMeanwhile(base)) return;
      const finished = usable.map((d) => {
        const chunkCount = chunksByDocument.get(d.uid) ?? 0;
        return {
          ...d,
          status: "ready",
          chunkCount,
          message: chunkCount === 0 ? "No text chunks came out of this document." : null,
        };
      });
      await db.$transaction(async (tx) => {
        for (const d of finished)
          await tx.knowledgeDocument.updateMany({
            where: { id: d.id },
            data: { status: d.status, chunkCount: d.chunkCount, message: d.message },
          });
        await tx.knowledgeBase.updateMany({
          where: { id: base.id },
          // Every rebuild uses the built-in local embedder; a base from before it existed said "hash".
          data: {
            status: usable.length ? "ready" : "empty",
            progress: usable.length ? 1 : 0,
            message: null,
            embedder: "local",
          },
        });
      });
      for (const d of finished.filter(
        (d) =>
          d.status !== docs.find((o) => o.id === d.id)?.status ||
          d.chunkCount !== docs.find((o) => o.id === d.id)?.chunkCount,
      ))
        await documentEvent(base, d);
      const ms = Date.now() - started;
      await events.publish(kbRoom(base.uid), { type: "kb.indexed", payload: { documents: usable.length, chunks, ms } });
      log.info({ knowledgeBase: base.uid, documents: usable.length, chunks, ms }, "knowledge base indexed");
    } catch (err) {
      await report.settle();
      if (await removedMeanwhile(base).catch(() => false)) return;
      const failure = publicError(err, {
        doing: "indexing the knowledge base",
        log,
        context: { knowledgeBase: base.uid },
      });
      const message = `${failure.message} Search still uses the previous index.`;
      await db.knowledgeBase
        .updateMany({ where: { id: base.id }, data: { status: "failed", message } })
        .catch(() => undefined);
      await events.publish(kbRoom(base.uid), { type: "kb.failed", payload: { message } }).catch(() => undefined);
    } finally {
      store.close();
    }
  }

  return { schedule, busy: (baseId) => queued.has(baseId) || running.has(baseId), job };
}
