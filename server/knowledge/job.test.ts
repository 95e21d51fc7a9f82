/**
 * The knowledge-base indexing job's failure paths, against a real database and event bus: what a
 * failed build and an unreadable document tell viewers (row message, `kb:` room events), and what
 * the log keeps.
 */
import { mkdir, writeFile } from "node:fs/promises";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openMigratedDb, type TestConfig } from "../../test/helpers/db.ts";
import { captureLog, type CapturedLog } from "../../test/helpers/log.ts";
import type { Db, KnowledgeBase } from "../db/client.ts";
import { createEventBus, type EventBus } from "../events/bus.ts";
import { createInProcessQueue } from "../jobs/queue.ts";
import { kbRoom } from "../shared/rooms.ts";
import { createKnowledgeIndexer } from "./job.ts";
import { baseDirs, documentPaths } from "./storage.ts";

let db: Db;
let t: TestConfig;
let close: () => Promise<void>;
let workspaceId: string;

beforeAll(async () => {
  ({ db, t, close } = await openMigratedDb());
  workspaceId = (await db.workspace.create({ data: { name: "w" } })).id;
});
afterAll(() => close());

async function newBase(): Promise<KnowledgeBase> {
  return db.knowledgeBase.create({
    data: { uid: crypto.randomUUID(), workspaceId, name: `kb-${crypto.randomUUID()}`, chunking: "{}" },
  });
}

/** Indexes the base once with a captured log; resolves when the run is over. */
async function index(base: KnowledgeBase): Promise<{ events: EventBus; log: CapturedLog }> {
  const log = captureLog();
  const silent = pino({ level: "silent" });
  const events = createEventBus({ db, log: silent });
  const queue = createInProcessQueue({ concurrency: 1, log: silent });
  const indexer = createKnowledgeIndexer({ db, config: t.config, log: log.log, events, queue });
  queue.register("knowledge.index", indexer.job.handler, indexer.job.options);
  indexer.schedule(base.id);
  await queue.idle();
  await events.flush();
  await queue.close();
  return { events, log };
}

const referenceIn = (text: string | null | undefined) => /reference: ([0-9a-f]{8})\./.exec(text ?? "")?.[1];

describe("a knowledge base build that fails", () => {
  it("unexpectedly (the database throws): a sentence and a reference for viewers, the detail in the log", async () => {
    const base = await newBase();
    const err = new Error(
      "Invalid `prisma.knowledgeDocument.findMany()` invocation in /root/secret/x.ts: SQLITE_CORRUPT",
    );
    const findMany = vi.spyOn(db.knowledgeDocument, "findMany").mockRejectedValueOnce(err);
    try {
      const { events, log } = await index(base);
      const row = await db.knowledgeBase.findUniqueOrThrow({ where: { id: base.id } });
      expect(row.status).toBe("failed");
      expect(row.message).toMatch(
        /^Something went wrong while indexing the knowledge base\. .* Search still uses the previous index\.$/,
      );
      const reference = referenceIn(row.message);
      expect(reference).toBeDefined();

      const room = await events.history(kbRoom(base.uid));
      expect(room.filter((e) => e.type === "kb.failed").map((e) => e.payload)).toEqual([{ message: row.message }]);
      for (const leak of ["/root/secret", "prisma.", "SQLITE_CORRUPT"]) {
        expect(row.message).not.toContain(leak);
        expect(JSON.stringify(room)).not.toContain(leak);
      }
      const logged = log.lines().find((l) => l.reference === reference);
      expect(logged).toMatchObject({ level: 50, knowledgeBase: base.uid, err: { message: err.message } });
      expect((logged!.err as { stack: string }).stack).toContain("\n    at ");
    } finally {
      findMany.mockRestore();
    }
  });

  it("a document whose text cannot be written: its message names it and gives a reference, not the server path", async () => {
    const base = await newBase();
    const doc = await db.knowledgeDocument.create({
      data: {
        uid: crypto.randomUUID(),
        knowledgeBaseId: base.id,
        name: "notes.txt",
        mime: "text/plain",
        bytes: 5,
        sha256: "a".repeat(64),
      },
    });
    const dirs = baseDirs(t.config.dataDir, base.id);
    await mkdir(dirs.docs, { recursive: true });
    await writeFile(documentPaths(t.config.dataDir, base.id, doc.id, doc.name).original, "hello");
    await writeFile(dirs.text, "a file where the text folder should be"); // mkdir fails, naming the path

    const { events, log } = await index(base);
    const row = await db.knowledgeDocument.findUniqueOrThrow({ where: { id: doc.id } });
    expect(row.status).toBe("failed");
    expect(row.message).toMatch(/^Something went wrong while reading notes\.txt\. /);
    const reference = referenceIn(row.message);
    expect(reference).toBeDefined();
    const room = JSON.stringify(await events.history(kbRoom(base.uid)));
    expect(room).toContain(reference);
    for (const leak of [t.config.dataDir, "EEXIST", "ENOTDIR"]) {
      expect(row.message).not.toContain(leak);
      expect(room).not.toContain(leak);
    }
    const logged = log.lines().find((l) => l.reference === reference);
    expect(JSON.stringify(logged)).toContain(dirs.text);
  });
});
