/**
 * Spectators on the real Socket.IO server: a socket opened with a review's share link (no account)
 * watches that one review room; every other room and every message but the read ones are refused
 * with a reason and write nothing; a revoked or expired link takes the room away at once.
 */
import { io as connect, type Socket } from "socket.io-client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createReviewRow } from "../../test/helpers/review-row.ts";
import { openRoomClient, type RoomClient } from "../../test/helpers/room-client.ts";
import { signUp, startTestServer, type TestServer, type TestUser } from "../../test/helpers/server.ts";
import type { RoomEvent } from "../shared/room-events.ts";
import type { Ack, ClientMessage, ServerToClientEvents } from "../shared/room-protocol.ts";
import { ROOM_PROTOCOL_VERSION } from "../shared/room-protocol.ts";
import { kbRoom, reviewRoom } from "../shared/rooms.ts";

let server: TestServer;
let owner: TestUser;
const sockets: Socket[] = [];
const members: RoomClient[] = [];

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server.url, { name: "Olga Owner" });
});
afterEach(() => {
  while (sockets.length) sockets.pop()!.close();
  while (members.length) members.pop()!.close();
});
afterAll(async () => {
  await server?.stop();
});

interface Spectator {
  socket: Socket;
  events: RoomEvent[];
  revoked: Parameters<ServerToClientEvents["revoked"]>[0][];
  send(message: ClientMessage, payload: unknown): Promise<Ack<Record<string, unknown>>>;
}

/** A socket opened with a share token, no cookie; resolves on ready, rejects with the connect_error. */
async function spectate(token: string): Promise<Spectator & { userId: string }> {
  const socket = connect(server.url, {
    forceNew: true,
    reconnection: false,
    transports: ["websocket"],
    auth: { share: token, protocol: ROOM_PROTOCOL_VERSION },
    timeout: 5000,
  });
  sockets.push(socket);
  const events: RoomEvent[] = [];
  const revoked: Spectator["revoked"] = [];
  socket.on("event", (e: RoomEvent) => events.push(e));
  socket.on("revoked", (r: Spectator["revoked"][number]) => revoked.push(r));
  const ready = await new Promise<{ userId: string }>((resolve, reject) => {
    socket.once("ready", resolve);
    socket.once("connect_error", reject);
  });
  return {
    ...ready,
    socket,
    events,
    revoked,
    send: (message, payload) =>
      socket.timeout(5000).emitWithAck(message, payload) as Promise<Ack<Record<string, unknown>>>,
  };
}

async function sharedReview() {
  const r = await createReviewRow(server.services.db, owner.workspaceId, { findings: [{ fingerprint: "fp-1" }] });
  const link = await owner.client.ok<{ uid: string; token: string }>("mutate", "shares.create", { reviewUid: r.uid });
  return { ...r, room: reviewRoom(r.uid), ...link, shareUid: link.uid };
}

async function member(): Promise<RoomClient> {
  const c = await openRoomClient(server.url, owner.client.cookie);
  members.push(c);
  return c;
}

/** Rows any room message could write. */
async function writes(): Promise<number[]> {
  const db = server.services.db;
  return Promise.all([
    db.roomEvent.count(),
    db.roomMessage.count(),
    db.roomMessageEdit.count(),
    db.roomMessageReaction.count(),
    db.findingVote.count(),
    db.reviewSteer.count(),
    db.reviewFinding.count({ where: { resolvedAt: { not: null } } }),
  ]);
}

async function until(cond: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("the handshake with a share link", () => {
  it("a valid link connects as a guest; a guessed, revoked or malformed one is refused saying why", async () => {
    const r = await sharedReview();
    const guest = await spectate(r.token);
    expect(guest.userId).toMatch(/^guest:/);

    const fail = (token: unknown) =>
      spectate(token as string).then(
        () => null,
        (err: Error & { data?: { status: number; message: string } }) => err,
      );
    expect((await fail("B".repeat(32)))?.data).toEqual({ status: 404, message: expect.stringMatching(/not valid/) });
    expect((await fail(""))?.data).toMatchObject({ status: 400 });
    expect((await fail({ token: r.token }))?.data).toMatchObject({ status: 400 });
    await owner.client.ok("mutate", "shares.revoke", { uid: r.shareUid });
    expect((await fail(r.token))?.data).toEqual({ status: 403, message: expect.stringMatching(/revoked/) });
  });
});

describe("what a spectator may do", () => {
  it("joins its review room: the log, then live events, and the chat (read)", async () => {
    const r = await sharedReview();
    const team = await member();
    expect((await team.call("join", { room: r.room })).ok).toBe(true);
    const said = await team.call("chat.send", { room: r.room, body: "hello from the team" });
    expect(said.ok).toBe(true);

    const guest = await spectate(r.token);
    const joined = await guest.send("join", { room: r.room });
    expect(joined.ok).toBe(true);
    expect((joined as unknown as { events: RoomEvent[] }).events.map((e) => e.type)).toContain("chat_message");
    const page = await guest.send("chat.page", { room: r.room });
    expect(page).toMatchObject({ ok: true, messages: [expect.objectContaining({ body: "hello from the team" })] });

    await team.call("chat.send", { room: r.room, body: "live now" });
    await until(() => guest.events.some((e) => e.type === "chat_message" && e.payload.body === "live now"));
    expect((await guest.send("history", { room: r.room, afterSeq: 0 })).ok).toBe(true);
    expect((await guest.send("leave", { room: r.room })).ok).toBe(true);
  });

  it("shows in presence as Guest, with nothing personal", async () => {
    const r = await sharedReview();
    const team = await member();
    const seen: { name: string; userId: string }[][] = [];
    team.socket.on("presence", (p) => {
      if (p.room === r.room) seen.push(p.members);
    });
    await team.call("join", { room: r.room });
    const guest = await spectate(r.token);
    await guest.send("join", { room: r.room });
    await until(() => seen.some((m) => m.some((x) => x.name === "Guest")));
    const guestEntry = seen.at(-1)!.find((x) => x.name === "Guest")!;
    expect(guestEntry.userId).toBe(guest.userId);
    expect(JSON.stringify(guestEntry)).not.toContain("@");
  });

  it("may not enter any other room: another review of the workspace, a knowledge base", async () => {
    const r = await sharedReview();
    const other = await createReviewRow(server.services.db, owner.workspaceId);
    const kbUid = crypto.randomUUID();
    await server.services.db.knowledgeBase.create({
      data: { uid: kbUid, workspaceId: owner.workspaceId, name: "kb", chunking: "{}" },
    });
    const guest = await spectate(r.token);
    for (const room of [reviewRoom(other.uid), kbRoom(kbUid)]) {
      const reply = await guest.send("join", { room });
      expect(reply, room).toEqual({
        ok: false,
        code: "forbidden",
        message: expect.stringMatching(/only the review it was made for/),
      });
      expect((await guest.send("chat.page", { room })).ok).toBe(false);
      expect((await guest.send("history", { room, afterSeq: 0 })).ok).toBe(false);
    }
    await server.services.events.publish(reviewRoom(other.uid), {
      type: "review_status",
      payload: { status: "running", reason: null },
    });
    await new Promise((res) => setTimeout(res, 200));
    expect(guest.events).toEqual([]);
  });

  it("every other message is refused with an error ack naming why, and nothing is written", async () => {
    const r = await sharedReview();
    const team = await member();
    await team.call("join", { room: r.room });
    const sent = await team.call("chat.send", { room: r.room, body: "to edit" });
    const id = sent.ok ? sent.message.id : "";
    const guest = await spectate(r.token);
    expect((await guest.send("join", { room: r.room })).ok).toBe(true);
    const before = await writes();
    const tries: [ClientMessage, unknown, RegExp][] = [
      ["chat.send", { room: r.room, body: "from outside" }, /cannot post in the chat/],
      ["chat.edit", { room: r.room, id, body: "changed" }, /cannot edit messages/],
      ["chat.delete", { room: r.room, id }, /cannot delete messages/],
      ["chat.edits", { room: r.room, id }, /earlier texts/],
      ["chat.typing", { room: r.room }, /cannot type in the chat/],
      ["chat.react", { room: r.room, id, emoji: "👍" }, /cannot react to messages/],
      ["presence.update", { room: r.room, focus: { kind: "activity" } }, /share what you look at/],
      ["finding.vote", { room: r.room, fingerprint: "fp-1", verdict: "false_positive" }, /cannot vote/],
      ["finding.resolve", { room: r.room, fingerprint: "fp-1", resolved: true }, /cannot resolve/],
      ["steer.hint", { room: r.room, text: "skip everything" }, /cannot give the agent hints/],
      ["steer.pause", { room: r.room }, /cannot pause/],
      ["steer.resume", { room: r.room }, /cannot resume/],
      ["steer.stop", { room: r.room }, /cannot stop/],
    ];
    for (const [message, payload, why] of tries) {
      const reply = await guest.send(message, payload);
      expect(reply, message).toEqual({ ok: false, code: "forbidden", message: expect.stringMatching(why) });
      expect((reply as { message: string }).message).toMatch(/read-only/);
    }
    expect(await writes()).toEqual(before);
  });
});

describe("a link that stops working", () => {
  it("revoked: its sockets lose the room before revoke returns, then hear nothing more", async () => {
    const r = await sharedReview();
    const guest = await spectate(r.token);
    expect((await guest.send("join", { room: r.room })).ok).toBe(true);
    await owner.client.ok("mutate", "shares.revoke", { uid: r.shareUid });
    // Revoke awaits the eviction: the room is gone on the server by the time it answered.
    const sockets = await server.io.in(r.room).fetchSockets();
    expect(sockets.length).toBe(0);
    await until(() => guest.revoked.length > 0);
    expect(guest.revoked[0]).toEqual({ room: r.room, reason: expect.stringMatching(/revoked/) });
    await until(() => !guest.socket.connected);
    await server.services.events.publish(r.room, {
      type: "review_status",
      payload: { status: "running", reason: null },
    });
    await new Promise((res) => setTimeout(res, 200));
    expect(guest.events.filter((e) => e.type === "review_status")).toEqual([]);
  });

  it("expired while connected: the room is taken away when the link's time is up", async () => {
    const r = await sharedReview();
    await server.services.db.reviewShare.update({
      where: { uid: r.shareUid },
      data: { expiresAt: new Date(Date.now() + 700) },
    });
    const guest = await spectate(r.token);
    expect((await guest.send("join", { room: r.room })).ok).toBe(true);
    await until(() => guest.revoked.length > 0, 3000);
    expect(guest.revoked[0]).toEqual({ room: r.room, reason: expect.stringMatching(/expired on/) });
  });

  it("each message checks the link again, not only the join", async () => {
    const r = await sharedReview();
    const guest = await spectate(r.token);
    expect((await guest.send("join", { room: r.room })).ok).toBe(true);
    // Revoked behind the server's back (another node, a script): no announcement reaches this node.
    await server.services.db.reviewShare.update({ where: { uid: r.shareUid }, data: { revokedAt: new Date() } });
    expect(await guest.send("chat.page", { room: r.room })).toEqual({
      ok: false,
      code: "forbidden",
      message: expect.stringMatching(/revoked/),
    });
    expect((await guest.send("history", { room: r.room, afterSeq: 0 })).ok).toBe(false);
  });
});
