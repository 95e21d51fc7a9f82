/** Team chat over the room protocol on the real server: two members, a stranger, bad input. */
import { beforeAll, describe, expect, it } from "vitest";
import { createReviewRow } from "../../test/helpers/review-row.ts";
import type { RoomClient } from "../../test/helpers/room-client.ts";
import { roomTeam } from "../../test/helpers/room-team.ts";
import { signUpInNewWorkspace, type TestServer, type TestUser } from "../../test/helpers/server.ts";
import { CHAT_MAX_BYTES, CHAT_RATE_MESSAGES, type ChatMessage } from "../shared/room-chat.ts";
import { kbRoom, reviewRoom, type RoomName } from "../shared/rooms.ts";
import { MAX_FRAME_BYTES } from "../realtime/socket.ts";

const team = roomTeam();
let server: TestServer;
let owner: TestUser;
beforeAll(() => void ({ server, owner } = team));

const client = team.client;

const teammate = team.teammate;

async function reviewWith(fingerprints: string[] = []): Promise<RoomName<"review">> {
  const r = await createReviewRow(server.services.db, owner.workspaceId, {
    findings: fingerprints.map((fingerprint) => ({ fingerprint })),
  });
  return reviewRoom(r.uid);
}

const chats = (c: RoomClient) => c.events.flatMap((e) => (e.type === "chat_message" ? [e.payload as ChatMessage] : []));

describe("team chat", () => {
  it("a message from one member reaches the other live, is paged, and its author edits it (history kept) or deletes it", async () => {
    const room = await reviewWith();
    const bea = await teammate("Bea Member", "member");
    const [a, b] = [await client(owner), await client(bea)];
    for (const c of [a, b]) expect(await c.call("join", { room, afterSeq: 0 })).toMatchObject({ ok: true });

    const sent = await a.call("chat.send", { room, body: "Look at **src/app.ts:12**" });
    expect(sent).toMatchObject({
      ok: true,
      message: { body: "Look at **src/app.ts:12**", author: { id: owner.userId, name: "Olga Owner" }, version: 1 },
    });
    const id = sent.ok ? sent.message.id : "";
    await expect.poll(() => chats(b).map((m) => m.body)).toEqual(["Look at **src/app.ts:12**"]);

    // Only the author changes a message; the refusal changes nothing.
    expect(await b.call("chat.edit", { room, id, body: "hijacked" })).toEqual({
      ok: false,
      code: "forbidden",
      message: "Only its author can change or delete a message.",
    });
    expect(await b.call("chat.delete", { room, id })).toMatchObject({ ok: false });
    const edited = await a.call("chat.edit", { room, id, body: "Look at src/app.ts:12-14" });
    expect(edited).toMatchObject({ ok: true, message: { body: "Look at src/app.ts:12-14", version: 2 } });
    expect(await b.call("chat.edits", { room, id })).toMatchObject({
      ok: true,
      edits: [{ version: 1, body: "Look at **src/app.ts:12**" }],
    });
    await expect.poll(() => chats(b).map((m) => [m.version, m.body])).toContainEqual([2, "Look at src/app.ts:12-14"]);

    expect(await a.call("chat.delete", { room, id })).toMatchObject({ ok: true, message: { deleted: true, body: "" } });
    expect(await a.call("chat.edits", { room, id })).toEqual({ ok: true, edits: [] });
    const page = await b.call("chat.page", { room });
    expect(page).toMatchObject({ ok: true, more: false, messages: [{ id, deleted: true, body: "", version: 3 }] });
    expect(await a.call("chat.edit", { room, id, body: "back" })).toEqual({
      ok: false,
      code: "not_found",
      message: "That message was deleted.",
    });
  });

  it("pages older messages, oldest first, with more while there are", async () => {
    const room = await reviewWith();
    const base = Date.now() - 100_000;
    await server.services.db.roomMessage.createMany({
      data: Array.from({ length: 60 }, (_, i) => ({
        uid: crypto.randomUUID(),
        room,
        authorId: owner.userId,
        body: `m${i}`,
        createdAt: new Date(base + i * 1000),
      })),
    });
    const c = await client(owner);
    const first = await c.call("chat.page", { room });
    if (!first.ok) throw new Error(first.message);
    expect([first.messages.length, first.more, first.messages[0]!.body, first.messages.at(-1)!.body]).toEqual([
      50,
      true,
      "m10",
      "m59",
    ]);
    const older = await c.call("chat.page", { room, before: first.messages[0]!.id });
    expect(older.ok && [older.messages.map((m) => m.body), older.more]).toEqual([
      Array.from({ length: 10 }, (_, i) => `m${i}`),
      false,
    ]);
  });

  it("threads belong to findings of this review: another fingerprint or a room without findings is refused", async () => {
    const room = await reviewWith(["fp-1"]);
    const c = await client(owner);
    const ok = await c.call("chat.send", { room, body: "real one", thread: "fp-1" });
    expect(ok).toMatchObject({ ok: true, message: { thread: "fp-1" } });
    expect(await c.call("chat.send", { room, body: "x", thread: "fp-other" })).toEqual({
      ok: false,
      code: "not_found",
      message: "That finding is not part of this review, so it has no thread here.",
    });
    const kbUid = crypto.randomUUID();
    await server.services.db.knowledgeBase.create({
      data: { uid: kbUid, workspaceId: owner.workspaceId, name: `kb ${kbUid.slice(0, 6)}`, chunking: "{}" },
    });
    expect(await c.call("chat.send", { room: kbRoom(kbUid), body: "x", thread: "fp-1" })).toMatchObject({
      ok: false,
      code: "invalid",
      message: expect.stringMatching(/Only a review's findings have threads/),
    });
    // The room's chat and the thread are paged apart.
    expect(await c.call("chat.page", { room })).toMatchObject({ ok: true, messages: [] });
    expect(await c.call("chat.page", { room, thread: "fp-1" })).toMatchObject({ messages: [{ body: "real one" }] });
  });

  it("bad input gets an error naming what was wrong, and nothing is stored", async () => {
    const room = await reviewWith();
    const c = await client(owner);
    expect(await c.call("chat.send", { room, body: "x".repeat(CHAT_MAX_BYTES + 1) })).toEqual({
      ok: false,
      code: "invalid",
      message:
        "The chat.send message was not understood: body: a message is at most 16 KB (16,384 bytes); this one is 16,385 bytes — split it or shorten it",
    });
    expect(await c.call("chat.send", { room, body: "   " })).toMatchObject({
      code: "invalid",
      message: expect.stringMatching(/body: a message needs some text/),
    });
    expect(await c.call("chat.send", { room } as never)).toMatchObject({
      code: "invalid",
      message: expect.stringMatching(/^The chat.send message was not understood: body:/),
    });
    expect(await c.call("chat.edit", { room, id: "not-a-uuid", body: "x" })).toMatchObject({
      code: "invalid",
      message: expect.stringMatching(/id:/),
    });
    expect(await c.call("chat.edit", { room, id: crypto.randomUUID(), body: "x" })).toMatchObject({
      code: "not_found",
      message: "That message is not in this room (it may have been deleted).",
    });
    expect(await server.services.db.roomMessage.count({ where: { room } })).toBe(0);
    // A frame far over any message's size is not buffered: the socket is closed.
    const flooder = await client(owner);
    void flooder.call("chat.send", { room, body: "x".repeat(MAX_FRAME_BYTES + 1) });
    await expect.poll(() => flooder.socket.connected).toBe(false);
    expect(await server.services.db.roomMessage.count({ where: { room } })).toBe(0);
  });

  it(`a user sending more than ${CHAT_RATE_MESSAGES} messages in 5 s is told when to retry`, async () => {
    const room = await reviewWith();
    const quick = await teammate("Quick Typist", "viewer");
    const c = await client(quick);
    for (let i = 0; i < CHAT_RATE_MESSAGES; i++)
      expect(await c.call("chat.send", { room, body: `m${i}` })).toMatchObject({ ok: true });
    const refused = await c.call("chat.send", { room, body: "one more" });
    expect(refused).toMatchObject({
      ok: false,
      code: "rate_limited",
      message: expect.stringMatching(/^You are sending messages faster than 10 in 5 s; try again in [1-5] s\.$/),
    });
    expect(!refused.ok && refused.retryAfterMs).toBeGreaterThan(0);
    expect(await server.services.db.roomMessage.count({ where: { room } })).toBe(CHAT_RATE_MESSAGES);
  });

  it("every message is authorized: a stranger is refused, and a member removed after joining is refused at once", async () => {
    const room = await reviewWith();
    const stranger = await client(await signUpInNewWorkspace(server, "Stranger"));
    expect(await stranger.call("chat.send", { room, body: "hi" })).toEqual({
      ok: false,
      code: "forbidden",
      message: "You are not a member of this workspace.",
    });
    expect(await stranger.call("chat.page", { room })).toMatchObject({ ok: false });
    const leaving = await teammate("Soon Removed", "member");
    const c = await client(leaving);
    expect(await c.call("join", { room, afterSeq: 0 })).toMatchObject({ ok: true });
    await server.services.db.membership.delete({
      where: { workspaceId_userId: { workspaceId: owner.workspaceId, userId: leaving.userId } },
    });
    // No periodic re-check needed: the next message is checked.
    expect(await c.call("chat.send", { room, body: "still here?" })).toEqual({
      ok: false,
      code: "forbidden",
      message: "You are not a member of this workspace.",
    });
    expect(await server.services.db.roomMessage.count({ where: { room } })).toBe(0);
  });

  it("deleting the room's review deletes its chat", async () => {
    const room = await reviewWith();
    const c = await client(owner);
    await c.call("chat.send", { room, body: "bye" });
    await server.services.events.deleteRoom(room);
    expect(await server.services.db.roomMessage.count({ where: { room } })).toBe(0);
  });
});
