/**
 * One indexing run of a base (job.ts): every document not parsed yet is parsed, the base's index is
 * rebuilt from every readable one, and the outcome is recorded on the rows and told to room
 * `kb:<uid>`; a failed build marks the base failed and leaves its previous index searchable.
 */
import type { KnowledgeBase, KnowledgeDocument } from "../db/client.ts";
import { publicError } from "../errors-public.ts";
import { kbRoom } from "../shared/rooms.ts";
import { connect, dropIndex } from "../retrieval/store/index.ts";
import { buildBaseIndex } from "./build.ts";
import { readChunking } from "./chunking.ts";
import { ensureText, loadText } from "./document-text.ts";
import { documentEvent, progressWriter, type IndexingDeps } from "./index-events.ts";
import { dropBaseStorage, knowledgeIndexName, searchStoreUri } from "./storage.ts";

/** A base deleted while its run went on: whatever the run wrote (text files, index, events) is removed. */
async function removedMeanwhile({ db, config, log, events }: IndexingDeps, base: KnowledgeBase): Promise<boolean> {
  if (await db.knowledgeBase.findUnique({ where: { id: base.id }, select: { id: true } })) return false;
  await dropBaseStorage(config, base.id, log);
  await events.deleteRoom(kbRoom(base.uid));
  return true;
}

export async function indexBase(d: IndexingDeps, baseId: string): Promise<void> {
  const { db, config, log, events } = d;
  const base = await db.knowledgeBase.findUnique({ where: { id: baseId } });
  if (!base) return;
  const started = Date.now();
  const report = progressWriter(d, base);
  const store = await connect(searchStoreUri(config));
  try {
    report(0, "Reading documents", true);
    const docs = await db.knowledgeDocument.findMany({
      where: { knowledgeBaseId: base.id, status: { in: ["pending", "ready"] } },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    const usable: KnowledgeDocument[] = [];
    for (const [i, doc] of docs.entries()) {
      if (await ensureText(d, base, doc)) usable.push(doc);
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
        usable.map((u) => ({ uid: u.uid, load: () => loadText(d, base, u) })),
        settings,
        (f, message) => report(0.3 + 0.7 * f, message),
      );
      chunks = built.rows;
      chunksByDocument = built.chunksByDocument;
    }
    await report.settle();
    if (await removedMeanwhile(d, base)) return;
    const finished = usable.map((u) => {
      const chunkCount = chunksByDocument.get(u.uid) ?? 0;
      return {
        ...u,
        status: "ready",
        chunkCount,
        message: chunkCount === 0 ? "No text chunks came out of this document." : null,
      };
    });
    await db.$transaction(async (tx) => {
      for (const f of finished)
        await tx.knowledgeDocument.updateMany({
          where: { id: f.id },
          data: { status: f.status, chunkCount: f.chunkCount, message: f.message },
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
    for (const f of finished.filter(
      (f) =>
        f.status !== docs.find((o) => o.id === f.id)?.status ||
        f.chunkCount !== docs.find((o) => o.id === f.id)?.chunkCount,
    ))
      await documentEvent(d, base, f);
    const ms = Date.now() - started;
    await events.publish(kbRoom(base.uid), { type: "kb.indexed", payload: { documents: usable.length, chunks, ms } });
    log.info({ knowledgeBase: base.uid, documents: usable.length, chunks, ms }, "knowledge base indexed");
  } catch (err) {
    await report.settle();
    if (await removedMeanwhile(d, base).catch(() => false)) return;
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
