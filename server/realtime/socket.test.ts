/** The Socket.IO handshake on the real server: the same session check as tRPC. */
import { io as connect, type Socket } from "socket.io-client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RoomEvent } from "../shared/room-events.ts";
import {
  type Ack,
  type ClientToServerEvents,
  HISTORY_PAGE,
  type HistoryReply,
  type ServerToClientEvents,
  REPLY_MAX_BYTES,
  ROOM_PROTOCOL_VERSION,
} from "../shared/room-protocol.ts";
import { jsonBytes } from "../shared/reply-bytes.ts";
import { RoomFeed } from "../shared/room-delivery.ts";
import { kbRoom, reviewRoom, type RoomName } from "../shared/rooms.ts";
import { recheckSockets } from "./socket.ts";
import {
  inviteAndSignUp,
  signIn,
  signUp,
  signUpInNewWorkspace,
  startTestServer,
  type TestServer,
  type TestUser,
} from "../../test/helpers/server.ts";
import { createReviewRow } from "../../test/helpers/review-row.ts";

let server: TestServer;
let user: TestUser;
const sockets: Socket[] = [];

beforeAll(async () => {
  server = await startTestServer();
  user = await signUp(server.url, { name: "Sam Socket" });
});
afterEach(() => {
  while (sockets.length) sockets.pop()!.close();
});
afterAll(async () => {
  await server?.stop();
});

function open(cookie?: string, opts: { reconnection?: boolean; reconnectionDelay?: number } = {}): Socket {
  const socket = connect(server.url, {
    forceNew: true,
    auth: { protocol: ROOM_PROTOCOL_VERSION },
    reconnection: false,
    ...opts,
    transports: ["websocket"],
    extraHeaders: cookie ? { cookie } : {},
    timeout: 5000,
  });
  sockets.push(socket);
  return socket;
}

/** Resolves with the first "ready" payload or rejects with the connect_error. */
function outcome(socket: Socket): Promise<{ userId: string }> {
  return new Promise((resolve, reject) => {
    socket.once("ready", resolve);
    socket.once("connect_error", reject);
  });
}

describe("Socket.IO handshake", () => {
  it("with a valid session cookie: connects and receives ready with the user id", async () => {
    const socket = open(user.client.cookie);
    await expect(outcome(socket)).resolves.toEqual({ userId: user.userId });
    expect(socket.connected).toBe(true);
  });

  it("a session from sign-in works too, for the same user", async () => {
    const { client } = await signIn(server.url, user.email, user.password);
    await expect(outcome(open(client.cookie))).resolves.toEqual({ userId: user.userId });
  });

  it('without a cookie: connect_error "unauthorized" with the 401 details', async () => {
    const socket = open();
    const err = (await outcome(socket).then(
      () => null,
      (e: unknown) => e,
    )) as (Error & { data?: { status: number; message: string } }) | null;
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toBe("unauthorized");
    expect(err!.data).toEqual({ status: 401, message: "Sign in to continue." });
    expect(socket.connected).toBe(false);
  });

  it("with a forged or signed-out session cookie: unauthorized", async () => {
    await expect(outcome(open("better-auth.session_token=forged.signature"))).rejects.toThrow("unauthorized");

    const { client } = await signIn(server.url, user.email, user.password);
    const res = await fetch(`${server.url}/api/auth/sign-out`, {
      method: "POST",
      headers: { cookie: client.cookie, origin: server.url, "content-type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(200);
    await expect(outcome(open(client.cookie))).rejects.toThrow("unauthorized");
  });

  it("many clients at once each get their own ready", async () => {
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => outcome(open(user.client.cookie))));
    expect(results).toEqual(Array(5).fill({ userId: user.userId }));
  });
});

type RoomClient = Socket<ServerToClientEvents, ClientToServerEvents>;
const join = (socket: RoomClient, room: string, afterSeq = 0) =>
  new Promise<Ack<HistoryReply>>((resolve) => socket.emit("join", { room, afterSeq }, resolve));

async function knowledgeRoom(workspaceId = user.workspaceId): Promise<RoomName<"kb">> {
  const uid = crypto.randomUUID();
  await server.services.db.knowledgeBase.create({
    data: { uid, workspaceId, name: `kb ${uid.slice(0, 8)}`, chunking: "{}" },
  });
  return kbRoom(uid);
}

const progress = (p: number) =>
  ({ type: "kb.progress", payload: { status: "indexing", progress: p, message: `${p}` } }) as const;

describe("rooms", () => {
  it("a member joins, gets the log after afterSeq, then every new event live", async () => {
    const room = await knowledgeRoom();
    await server.services.events.publish(room, progress(0.1));
    await server.services.events.publish(room, progress(0.5));
    const socket: RoomClient = open(user.client.cookie);
    await outcome(socket);
    const joined = await join(socket, room);
    expect(joined.ok && joined.events.map((e) => [e.seq, e.type])).toEqual([
      [1, "kb.progress"],
      [2, "kb.progress"],
    ]);
    expect(joined.ok && joined.more).toBe(false);
    const later = await join(socket, room, 1);
    expect(later.ok && later.events.map((e) => e.seq)).toEqual([2]);

    const live: RoomEvent[] = [];
    socket.on("event", (e) => live.push(e));
    await server.services.events.publish(room, progress(0.7));
    await server.services.events.publish(room, { type: "kb.indexed", payload: { documents: 1, chunks: 1, ms: 1 } });
    await expect.poll(() => live.length).toBe(2);
    expect(live.map((e) => [e.room, e.seq, e.type])).toEqual([
      [room, 3, "kb.progress"],
      [room, 4, "kb.indexed"],
    ]);

    // After leaving, nothing more arrives.
    socket.emit("leave", { room });
    await new Promise((r) => setTimeout(r, 100));
    await server.services.events.publish(room, progress(0.9));
    await new Promise((r) => setTimeout(r, 100));
    expect(live).toHaveLength(2);
  });

  it("pages a long log: join says more, history gives the rest, in order, each event once", async () => {
    const room = await knowledgeRoom();
    const total = HISTORY_PAGE + 5;
    await server.services.db.roomEvent.createMany({
      data: Array.from({ length: total }, (_, i) => ({
        room,
        seq: i + 1,
        type: "kb.progress",
        payload: JSON.stringify(progress(0.5).payload),
      })),
    });
    const socket: RoomClient = open(user.client.cookie);
    await outcome(socket);
    // Pages of at most HISTORY_PAGE events and REPLY_MAX_BYTES each, until one says no more.
    const first = await join(socket, room);
    expect(first.ok && first.more).toBe(true);
    const seqs: number[] = [];
    let page: Ack<HistoryReply> = first;
    for (;;) {
      if (!page.ok) throw new Error(page.message);
      expect(page.events.length).toBeLessThanOrEqual(HISTORY_PAGE);
      expect(jsonBytes(page.events)).toBeLessThanOrEqual(REPLY_MAX_BYTES);
      seqs.push(...page.events.map((e) => e.seq));
      if (!page.more) break;
      const after = seqs.at(-1)!;
      page = await new Promise<Ack<HistoryReply>>((resolve) =>
        socket.emit("history", { room, afterSeq: after }, resolve),
      );
    }
    expect(seqs).toEqual(Array.from({ length: total }, (_, i) => i + 1));
  }, 60_000);

  it("a client whose socket is cut mid-stream rejoins after its last seq and rebuilds the log exactly", async () => {
    const room = reviewRoom((await createReviewRow(server.services.db, user.workspaceId, { status: "running" })).uid);
    const socket: RoomClient = open(user.client.cookie, { reconnection: true, reconnectionDelay: 50 });
    await outcome(socket);
    // The client's bookkeeping, as app/_lib/room.ts does it.
    const got: RoomEvent[] = [];
    const feed = new RoomFeed<RoomEvent>((fresh) => got.push(...fresh));
    socket.on("event", (e) => feed.live(e));
    const rejoin = async () => {
      const r = await join(socket, room, feed.startJoin());
      if (r.ok) feed.page(r.events);
      feed.caughtUp();
    };
    let cuts = 0;
    socket.on("disconnect", () => cuts++);
    socket.on("connect", () => void rejoin());
    await rejoin();

    const publishing = (async () => {
      for (let i = 0; i < 60; i++) {
        const event =
          i % 3 === 0
            ? ({ type: "tool_call", payload: { id: `c${i}`, name: "grep", input: {}, iteration: i } } as const)
            : ({ type: "token", payload: { text: `t${i} `, phase: "exploring" } } as const);
        void server.services.events.publish(room, event);
        await new Promise((r) => setTimeout(r, 10));
      }
      await server.services.events.flush();
    })();
    await new Promise((r) => setTimeout(r, 150));
    // The transport drops (as a network cut would); Socket.IO reconnects by itself.
    socket.io.engine.close();
    await publishing;
    await expect.poll(() => socket.connected, { timeout: 5000 }).toBe(true);
    expect(cuts).toBe(1);
    const log = await server.services.events.history(room);
    await expect.poll(() => got.length, { timeout: 5000 }).toBe(log.length);
    expect(got.map((e) => e.seq)).toEqual(log.map((e) => e.seq));
    expect(got).toEqual(log);
  });

  it("refuses rooms of other workspaces, unknown rooms and malformed messages — and sends them nothing", async () => {
    const room = await knowledgeRoom();
    const stranger = await signUpInNewWorkspace(server, "Stranger");
    const socket: RoomClient = open(stranger.client.cookie);
    await outcome(socket);
    const live: unknown[] = [];
    socket.on("event", (e) => live.push(e));
    expect(await join(socket, room)).toEqual({
      ok: false,
      code: "forbidden",
      message: "You are not a member of this workspace.",
    });
    expect(await join(socket, `review:${crypto.randomUUID()}`)).toMatchObject({
      ok: false,
      code: "not_found",
      message: expect.stringMatching(/does not exist/),
    });
    const hint =
      "The join message was not understood: room: a room is review:<uid>, project:<uid>, run:<uid>, kb:<uid>, pipeline:<uid> or prompt:<uid>";
    expect(await join(socket, "../../etc")).toEqual({ ok: false, code: "invalid", message: hint });
    expect(await join(socket, [room] as unknown as string)).toEqual({
      ok: false,
      code: "invalid",
      message: "The join message was not understood: room: Invalid input: expected string, received array",
    });
    expect(await join(socket, room, -1)).toMatchObject({
      ok: false,
      code: "invalid",
      message: expect.stringMatching(/afterSeq/),
    });
    // The history of a room one may not enter is refused like the join.
    expect(await new Promise((resolve) => socket.emit("history", { room, afterSeq: 0 }, resolve))).toEqual({
      ok: false,
      code: "forbidden",
      message: "You are not a member of this workspace.",
    });
    await server.services.events.publish(room, progress(0.2));
    await new Promise((r) => setTimeout(r, 150));
    expect(live).toEqual([]);
  });
});

describe("rights are checked again while connected", () => {
  it("a signed-out session is disconnected; a room its user may no longer watch is left with the reason", async () => {
    const member = await signUpInNewWorkspace(server, "Soon Gone");
    const room = await knowledgeRoom();
    // The member joins the owner's workspace, watches the room, then loses the membership.
    await server.services.db.membership.create({
      data: { workspaceId: user.workspaceId, userId: member.userId, role: "viewer" },
    });
    const watcher: RoomClient = open(member.client.cookie);
    await outcome(watcher);
    expect(await join(watcher, room)).toMatchObject({ ok: true });
    const owner: RoomClient = open(user.client.cookie);
    await outcome(owner);
    expect(await join(owner, room)).toMatchObject({ ok: true });

    const seen: string[] = [];
    watcher.on("event", (e) => seen.push(e.type));
    const revoked: { room: string; reason: string }[] = [];
    watcher.on("revoked", (r) => revoked.push(r));
    await server.services.events.publish(room, progress(0.1));
    await expect.poll(() => seen).toEqual(["kb.progress"]);

    // Nothing changed: the check leaves everyone alone.
    expect(await recheckSockets(server.io, server.services)).toEqual({ disconnected: 0, revoked: 0 });

    await server.services.db.membership.delete({
      where: { workspaceId_userId: { workspaceId: user.workspaceId, userId: member.userId } },
    });
    expect(await recheckSockets(server.io, server.services)).toEqual({ disconnected: 0, revoked: 1 });
    await expect.poll(() => revoked).toEqual([{ room, reason: "You are not a member of this workspace." }]);
    await server.services.events.publish(room, progress(0.2));
    await new Promise((r) => setTimeout(r, 150));
    expect(seen).toEqual(["kb.progress"]);
    expect(owner.connected).toBe(true);

    // Signing out ends the session: the socket opened with it is disconnected.
    const res = await fetch(`${server.url}/api/auth/sign-out`, {
      method: "POST",
      headers: { cookie: member.client.cookie, origin: server.url, "content-type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(200);
    expect(await recheckSockets(server.io, server.services)).toEqual({ disconnected: 1, revoked: 0 });
    await expect.poll(() => watcher.connected).toBe(false);
    expect(owner.connected).toBe(true);
  });
});

describe("membership changes reach live sockets at once", () => {
  it("a removed member's socket leaves the room before the removal returns (not at the 30 s re-check)", async () => {
    const member = await inviteAndSignUp(user, "member", "Removed Soon");
    const uid = crypto.randomUUID();
    await server.services.db.knowledgeBase.create({
      data: { uid, workspaceId: user.workspaceId, name: `kb ${uid.slice(0, 8)}`, chunking: "{}" },
    });
    const room = kbRoom(uid);
    const watcher: RoomClient = open(member.client.cookie);
    await outcome(watcher);
    expect(await join(watcher, room)).toMatchObject({ ok: true });
    const seen: string[] = [];
    watcher.on("event", (e) => seen.push(`${e.type} ${JSON.stringify(e.payload)}`));
    const revoked: { room: string; reason: string }[] = [];
    watcher.on("revoked", (r) => revoked.push(r));

    // A role change that keeps read access leaves the socket where it is.
    await user.client.ok("mutate", "workspaces.changeRole", {
      workspaceId: user.workspaceId,
      userId: member.userId,
      role: "viewer",
    });
    await server.services.events.publish(room, progress(0.1));
    await expect.poll(() => seen).toEqual([`kb.progress ${JSON.stringify(progress(0.1).payload)}`]);

    const started = Date.now();
    await user.client.ok("mutate", "workspaces.removeMember", { workspaceId: user.workspaceId, userId: member.userId });
    // Published the moment the removal returned: it must not reach the removed member.
    await server.services.events.publish(room, progress(0.2));
    await expect
      .poll(() => revoked, { timeout: 2000 })
      .toEqual([{ room, reason: "You are not a member of this workspace." }]);
    expect(Date.now() - started).toBeLessThan(2000);
    await new Promise((r) => setTimeout(r, 150));
    expect(seen).toEqual([`kb.progress ${JSON.stringify(progress(0.1).payload)}`]);
    // Still connected (the session is valid), just without the room; joining again is refused.
    expect(watcher.connected).toBe(true);
    expect(await join(watcher, room)).toMatchObject({ ok: false });
  });
});
