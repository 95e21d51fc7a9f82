/**
 * Co-editing over the real server and real Socket.IO clients: who may edit, what is refused (and
 * then reaches nobody and nothing is stored), cursors, saving a version, two and ten editors typing
 * at once converging (random interleavings), offline edits merging on reconnect, a deleted pipeline
 * ending the session.
 */
import { beforeAll, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { Awareness, encodeAwarenessUpdate } from "y-protocols/awareness";
import { createPipelineRow, type Editor, openEditor, settled, SOURCE, textOf } from "../../test/helpers/coedit.ts";
import { roomTeam } from "../../test/helpers/room-team.ts";
import { signUpInNewWorkspace, type TestServer, type TestUser } from "../../test/helpers/server.ts";
import { encodeBinary, pipelineParams } from "../shared/coedit.ts";
import type { DocNotice } from "../shared/coedit.ts";
import { promptRoom } from "../shared/rooms.ts";

const team = roomTeam({ bea: ["Bea Member", "member"], vic: ["Vic Viewer", "viewer"] });
let server: TestServer;
let owner: TestUser;
let bea: TestUser;
let vic: TestUser;
beforeAll(
  () =>
    void ({
      server,
      owner,
      users: { bea, vic },
    } = team),
);

const editor = async (u: TestUser, room: string) => openEditor(await team.client(u), room);
const stored = (room: string) => server.services.db.coeditUpdate.count({ where: { room } });
const settle = () => new Promise((r) => setTimeout(r, 150));

/** A raw update message (y-protocols' update kind, 2) around `update`. */
const updateMessage = (update: Uint8Array) => encodeBinary(Uint8Array.from([2, update.length, ...update]));

describe("co-editing a pipeline", () => {
  it("members' edits reach each other and a viewer, who follows read-only", async () => {
    const room = await createPipelineRow(server.services.db, owner.workspaceId);
    const [a, b, v] = [await editor(owner, room), await editor(bea, room), await editor(vic, room)];
    expect(textOf(a)).toBe(SOURCE);
    expect([a.state.readOnly, b.state.readOnly, v.state.readOnly]).toEqual([false, false, true]);

    a.doc.getText("yaml").insert(0, "# from Olga\n");
    b.doc.getText("yaml").insert(SOURCE.length, "  - generation.generate\n");
    await settled([a, b, v]);
    expect(textOf(v)).toBe("# from Olga\n" + SOURCE + "  - generation.generate\n");

    // The viewer's edit is refused by the server: nobody gets it, nothing is stored.
    const before = await stored(room);
    const reply = await v.client.call("doc.update", {
      room,
      generation: 0,
      sync: updateMessage(Y.encodeStateAsUpdate(new Y.Doc())),
    });
    expect(reply).toMatchObject({ ok: false, code: "forbidden" });
    expect(await stored(room)).toBe(before);
  });

  it("refuses a malformed update and one into another root: not passed on, not stored", async () => {
    const room = await createPipelineRow(server.services.db, owner.workspaceId);
    const [a, b] = [await editor(owner, room), await editor(bea, room)];
    const heard: unknown[] = [];
    b.client.socket.on("doc.update", (u) => heard.push(u));
    const before = await stored(room);

    const garbage = encodeBinary(Uint8Array.from([2, 6, 9, 200, 1, 7, 7, 7]));
    expect(await a.client.call("doc.update", { room, generation: 0, sync: garbage })).toMatchObject({
      ok: false,
      code: "invalid",
    });
    expect(await a.client.call("doc.update", { room, generation: 0, sync: "%%%" })).toMatchObject({
      ok: false,
      code: "invalid",
    });
    const other = new Y.Doc();
    other.getText("evil").insert(0, "x");
    const reply = await a.client.call("doc.update", {
      room,
      generation: 0,
      sync: updateMessage(Y.encodeStateAsUpdate(other)),
    });
    expect(reply).toMatchObject({ ok: false, code: "invalid" });
    expect(reply.ok || reply.message).toContain("evil");
    // A secret (an API key) is never shared in the draft; the mask or a blank is.
    const secret = new Y.Doc();
    secret.getMap("params").set('["generation","api_key"]', "sk-live-123");
    const leak = await a.client.call("doc.update", {
      room,
      generation: 0,
      sync: updateMessage(Y.encodeStateAsUpdate(secret)),
    });
    expect(leak).toMatchObject({ ok: false, code: "invalid", message: expect.stringMatching(/secret/) });
    // Too big for one message: refused by its schema.
    const huge = await a.client.call("doc.update", { room, generation: 0, sync: "A".repeat(60_000) });
    expect(huge).toMatchObject({ ok: false, code: "invalid" });

    await settle();
    expect(heard).toEqual([]);
    expect(await stored(room)).toBe(before);
    expect(textOf(b)).toBe(SOURCE);
  });

  it("an edit needs the room joined and the doc open; an outsider opens nothing", async () => {
    const room = await createPipelineRow(server.services.db, owner.workspaceId);
    const c = await team.client(bea);
    const step1 = encodeBinary(Uint8Array.from([0, 1, 0]));
    expect(await c.call("doc.open", { room, sync: step1 })).toMatchObject({ ok: false, code: "invalid" });
    expect(await c.call("join", { room, afterSeq: 0 })).toMatchObject({ ok: true });
    const sync = updateMessage(Y.encodeStateAsUpdate(new Y.Doc()));
    expect(await c.call("doc.update", { room, generation: 0, sync })).toMatchObject({ ok: false, code: "conflict" });
    expect(await c.call("doc.open", { room, sync: step1 })).toMatchObject({ ok: true, readOnly: false });

    const outsider = await team.client(await signUpInNewWorkspace(server, "Stranger"));
    expect(await outsider.call("doc.open", { room, sync: step1 })).toMatchObject({ ok: false, code: "forbidden" });
    expect(await outsider.call("doc.update", { room, generation: 0, sync })).toMatchObject({
      ok: false,
      code: "forbidden",
    });
  });

  it("cursors carry the sender's real name, and nobody moves someone else's", async () => {
    const room = await createPipelineRow(server.services.db, owner.workspaceId);
    const [a, b] = [await editor(owner, room), await editor(bea, room)];
    a.awareness.setLocalState({ user: { name: "Not Olga", color: "#ff0000" }, cursor: null, line: 3 });
    await expect
      .poll(() => b.awareness.getStates().get(a.doc.clientID) as { user?: { name: string }; line?: number } | undefined)
      .toMatchObject({ user: { name: "Olga Owner" }, line: 3 });

    // Bea's socket announcing Olga's client id is refused.
    const fake = new Awareness(new Y.Doc());
    fake.clientID = a.doc.clientID;
    fake.setLocalState({ user: { name: "Bea", color: "#00ff00" } });
    const forged = encodeBinary(encodeAwarenessUpdate(fake, [a.doc.clientID]));
    expect(await b.client.call("doc.awareness", { room, update: forged })).toMatchObject({
      ok: false,
      code: "forbidden",
    });
    // Free text where a colour goes is refused.
    const odd = new Awareness(new Y.Doc());
    odd.setLocalState({ user: { name: "x", color: "<script>" } });
    const bad = encodeBinary(encodeAwarenessUpdate(odd, [odd.clientID]));
    expect(await b.client.call("doc.awareness", { room, update: bad })).toMatchObject({ ok: false, code: "invalid" });

    // Leaving takes the cursor away.
    a.client.close();
    await expect.poll(() => b.awareness.getStates().has(a.doc.clientID)).toBe(false);
  });

  it("save version stores the merged draft with who saved and who edited since", async () => {
    const room = await createPipelineRow(server.services.db, owner.workspaceId);
    const [a, b] = [await editor(owner, room), await editor(bea, room)];
    const notices: DocNotice[] = [];
    a.onNoticeReceived((n) => notices.push(n));
    b.doc.getText("yaml").insert(0, "# Bea was here\n");
    pipelineParams(a.doc).set('["retriever","top_k"]', 9);
    await settled([a, b]);
    const saved = await b.save("together");
    expect(saved).toMatchObject({ ok: true, version: 2 });
    const uid = room.slice("pipeline:".length);
    const row = await server.services.db.pipeline.findUniqueOrThrow({ where: { uid } });
    expect(row.source).toBe("# Bea was here\n" + SOURCE);
    expect(JSON.parse(row.parameters)).toEqual({ retriever: { top_k: 9 } });
    const version = await server.services.db.pipelineVersion.findFirstOrThrow({
      where: { pipelineId: row.id, version: 2 },
    });
    expect(version.createdById).toBe(bea.userId);
    expect((JSON.parse(version.editedBy) as string[]).sort()).toEqual([owner.userId, bea.userId].sort());
    await expect.poll(() => notices).toContainEqual({ kind: "saved", version: 2, by: "Bea Member" });
    // A viewer cannot save.
    const v = await editor(vic, room);
    expect(await v.save()).toMatchObject({ ok: false, code: "forbidden" });
  });

  it("two editors typing into the same line at once converge", async () => {
    const room = await createPipelineRow(server.services.db, owner.workspaceId);
    const [a, b] = [await editor(owner, room), await editor(bea, room)];
    const at = SOURCE.indexOf("retriever.search");
    for (let i = 0; i < 20; i++) {
      a.doc.getText("yaml").insert(at, "a");
      b.doc.getText("yaml").insert(at, "b");
      if (i % 5 === 0) await new Promise((r) => setTimeout(r, 5));
    }
    const text = await settled([a, b]);
    const count = (t: string, c: string) => t.split(c).length - 1;
    expect(count(text, "a") - count(SOURCE, "a")).toBe(20);
    expect(count(text, "b") - count(SOURCE, "b")).toBe(20);
  });

  it("ten editors with random interleavings always end with the same text as the server stored", async () => {
    for (const seed of [1, 2, 3]) {
      const rand = mulberry32(seed);
      const room = await createPipelineRow(server.services.db, owner.workspaceId);
      const users = [owner, bea];
      const editors: Editor[] = [];
      for (let i = 0; i < 10; i++) editors.push(await editor(users[i % 2]!, room));
      for (let step = 0; step < 200; step++) {
        const e = editors[Math.floor(rand() * editors.length)]!;
        const text = e.doc.getText("yaml");
        const pos = Math.floor(rand() * (text.length + 1));
        if (rand() < 0.3 && text.length > pos + 1) text.delete(pos, 1 + Math.floor(rand() * 3));
        else text.insert(pos, String.fromCharCode(97 + Math.floor(rand() * 26)));
        const r = rand();
        if (r < 0.1) await e.flush();
        else if (r < 0.2) await new Promise((res) => setTimeout(res, Math.floor(rand() * 10)));
      }
      const text = await settled(editors);
      // A newcomer (the server's doc) has exactly what everyone has.
      const late = await editor(owner, room);
      expect(textOf(late)).toBe(text);
      for (const e of [...editors, late]) e.client.close();
    }
  }, 60_000);

  it("edits made offline merge when the socket comes back", async () => {
    const room = await createPipelineRow(server.services.db, owner.workspaceId);
    const [a, b] = [await editor(owner, room), await editor(bea, room)];
    a.client.socket.disconnect();
    await expect.poll(() => a.state.status).toBe("offline");
    a.doc.getText("yaml").insert(0, "# offline\n");
    b.doc.getText("yaml").insert(SOURCE.length, "# online\n");
    await b.flush();
    a.client.socket.once("connect", () => void a.client.call("join", { room, afterSeq: 0 }));
    a.client.socket.connect();
    const text = await settled([a, b]);
    expect(text).toBe("# offline\n" + SOURCE + "# online\n");
  });

  it("a deleted pipeline ends its editors' session with a message", async () => {
    const room = await createPipelineRow(server.services.db, owner.workspaceId);
    const a = await editor(bea, room);
    const deleted = await owner.client.mutate("pipelines.delete", { uid: room.slice("pipeline:".length) });
    expect(deleted.error).toBeUndefined();
    await expect.poll(() => a.state).toMatchObject({ status: "ended", message: expect.stringMatching(/deleted/) });
    expect(await server.services.db.coeditDoc.count({ where: { room } })).toBe(0);
  });
});

describe("co-editing a prompt", () => {
  it("shares the prompt's text and saves it as the prompt's new wording", async () => {
    const uid = crypto.randomUUID();
    const made = await owner.client.mutate("prompts.create", {
      workspaceId: owner.workspaceId,
      uid,
      name: "Shared prompt",
      content: "Review carefully.",
    });
    expect(made.error).toBeUndefined();
    const room = promptRoom(uid);
    const [a, b] = [await editor(owner, room), await editor(bea, room)];
    a.doc.getText("text").insert(0, "Please: ");
    b.doc.getText("text").insert("Review carefully.".length, " Twice.");
    expect(await settled([a, b], "text")).toBe("Please: Review carefully. Twice.");
    expect(await a.save()).toMatchObject({ ok: true, version: 2 });
    const row = await server.services.db.prompt.findUniqueOrThrow({ where: { uid } });
    expect(row.content).toBe("Please: Review carefully. Twice.");
  });
});

function mulberry32(seed: number) {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
