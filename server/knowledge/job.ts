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
 *
 * The run itself is index-run.ts; a document's text, parsed once, document-text.ts; what it reports,
 * index-events.ts.
 */
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import type { EventBus } from "../events/bus.ts";
import { kbRoom } from "../shared/rooms.ts";
import type { JobQueue } from "../jobs/queue.ts";
import type { JobRegistration } from "../jobs/registry.ts";
import type { Logger } from "../logger.ts";
import { indexBase } from "./index-run.ts";

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
  const { db, log, events, queue } = deps;
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
        await indexBase(deps, baseId);
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

  return { schedule, busy: (baseId) => queued.has(baseId) || running.has(baseId), job };
}
