/**
 * What an indexing run reports (job.ts): its progress to the base row and room `kb:<uid>`, throttled
 * and in order, and a document's new state as a `kb.document` event.
 */
import { throttledProgress } from "../jobs/throttled-progress.ts";
import type { Config } from "../config.ts";
import type { Db, KnowledgeBase, KnowledgeDocument } from "../db/client.ts";
import type { EventBus } from "../events/bus.ts";
import { kbRoom } from "../shared/rooms.ts";
import type { Logger } from "../logger.ts";

const PROGRESS_EVERY_MS = 500;

/** What an indexing run uses: the indexer's dependencies but its queue. */
export interface IndexingDeps {
  db: Db;
  config: Config;
  log: Logger;
  events: EventBus;
}

/** Progress: the row and an event, throttled (server/jobs/throttled-progress.ts). */
export function progressWriter({ db, log, events }: IndexingDeps, base: KnowledgeBase) {
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

export async function documentEvent(
  { events }: IndexingDeps,
  base: KnowledgeBase,
  doc: Pick<KnowledgeDocument, "uid" | "name" | "status" | "message" | "chunkCount">,
) {
  await events.publish(kbRoom(base.uid), {
    type: "kb.document",
    payload: { uid: doc.uid, name: doc.name, status: doc.status, message: doc.message, chunkCount: doc.chunkCount },
  });
}
