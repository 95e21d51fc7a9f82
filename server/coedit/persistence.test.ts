/**
 * A shared draft outlives its server: every edit is stored before anyone sees it, compacted into a
 * snapshot every COMPACT_EVERY updates, and a restarted server (same database) serves the same text —
 * the unsaved draft included. The store's compaction never folds an older state over a newer one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { createPipelineRow, openEditor, settled, SOURCE, textOf } from "../../test/helpers/coedit.ts";
import { openRoomClient, type RoomClient } from "../../test/helpers/room-client.ts";
import { signUp, startTestServer, type TestServer, type TestUser } from "../../test/helpers/server.ts";
import { COMPACT_EVERY } from "./registry.ts";
import { createDocStore } from "./store.ts";

let server: TestServer;
let owner: TestUser;
const clients: RoomClient[] = [];
beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server.url, { name: "Olga Owner" });
});
afterAll(async () => {
  for (const c of clients) c.close();
  await server?.stop();
});

async function editor(room: string) {
  const c = await openRoomClient(server.url, owner.client.cookie);
  clients.push(c);
  return openEditor(c, room);
}

describe("stored drafts", () => {
  it("compacts every COMPACT_EVERY updates and comes back whole after a restart", async () => {
    const room = await createPipelineRow(server.services.db, owner.workspaceId);
    const a = await editor(room);
    const db = () => server.services.db;
    const edits = COMPACT_EVERY + 30;
    for (let i = 0; i < edits; i++) {
      a.doc.getText("yaml").insert(0, String(i % 10));
      if (i % 7 === 0) a.doc.getText("yaml").delete(1, 1);
      await a.flush();
      // A typist's pace (the per-socket budget is 25 edits a second after a burst).
      if (i > 60) await new Promise((r) => setTimeout(r, 30));
    }
    const text = await settled([a]);
    const doc = await db().coeditDoc.findUniqueOrThrow({ where: { room } });
    const left = await db().coeditUpdate.count({ where: { room } });
    // Folded: fewer than COMPACT_EVERY updates remain, the snapshot holds the rest.
    expect(doc.upTo).toBeGreaterThan(0);
    expect(left).toBeLessThan(COMPACT_EVERY);
    const fromSnapshot = new Y.Doc();
    Y.applyUpdate(fromSnapshot, new Uint8Array(doc.snapshot));
    expect(fromSnapshot.getText("yaml").length).toBeGreaterThan(SOURCE.length);

    // The server goes away with the draft unsaved; a new one on the same database serves it.
    for (const c of clients.splice(0)) c.close();
    const dbConfig = server.db;
    await server.close();
    server = await startTestServer(dbConfig);
    const b = await editor(room);
    expect(textOf(b)).toBe(text);
    // And editing goes on from there.
    b.doc.getText("yaml").insert(0, "!");
    expect(await settled([b])).toBe("!" + text);
  }, 60_000);

  it("a compaction that lost the race to another writes nothing", async () => {
    const store = createDocStore(server.services.db);
    const room = "pipeline:00000000-0000-4000-8000-000000000001";
    const base = new Y.Doc();
    base.getText("yaml").insert(0, "abc");
    expect(await store.create(room, Y.encodeStateAsUpdate(base))).toBe(true);
    expect(await store.create(room, Y.encodeStateAsUpdate(new Y.Doc()))).toBe(false);
    const edit = (doc: Y.Doc, s: string) => {
      const before = Y.encodeStateVector(doc);
      doc.getText("yaml").insert(0, s);
      return Y.encodeStateAsUpdate(doc, before);
    };
    await store.append(room, 0, edit(base, "1"), null);
    await store.append(room, 0, edit(base, "2"), null);
    const [x, y] = await Promise.all([store.compact(room), store.compact(room)]);
    // One of them folded both updates; the other found the snapshot moved on (or nothing left).
    expect([x, y].filter((r) => r !== null).length).toBeGreaterThanOrEqual(1);
    const loaded = (await store.load(room))!;
    const doc = new Y.Doc();
    Y.applyUpdate(doc, loaded.snapshot);
    for (const u of loaded.updates) Y.applyUpdate(doc, u.data);
    expect(doc.getText("yaml").toString()).toBe("21abc");
    await store.remove(room);
    expect(await store.load(room)).toBeNull();
  });
});
