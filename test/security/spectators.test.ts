/**
 * Spectators (a review's share link, no account) probing workspace A: the link opens its review's
 * room and its review's data, read-only, and nothing else — no other room of A, no other review of
 * the same project, no message that writes, no member's email, no id leading further in, and no use
 * as an invite or a session, no inbox (nothing notifies a guest, a guest notifies nobody). A revoked
 * link opens nothing at all.
 */
import { randomUUID } from "node:crypto";
import { io as connect, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mentionToken } from "../../server/shared/mentions.ts";
import {
  type ClientMessage,
  clientMessages,
  SPECTATOR_MESSAGES,
  ROOM_PROTOCOL_VERSION,
} from "../../server/shared/room-protocol.ts";
import { kbRoom, projectRoom, reviewRoom, runRoom } from "../../server/shared/rooms.ts";
import { Client, uniqueEmail } from "../helpers/server.ts";
import { findLeaks } from "./support/canaries.ts";
import { buildWorld, type World } from "./support/world.ts";

let w: World;
/** A second review of A's project (same workspace, same project): the link must not reach it. */
let otherReviewUid: string;

beforeAll(async () => {
  w = await buildWorld();
  const db = w.server.services.db;
  const shared = await db.review.findUniqueOrThrow({ where: { uid: w.a.reviewUid } });
  otherReviewUid = randomUUID();
  await db.review.create({
    data: {
      uid: otherReviewUid,
      workspaceId: shared.workspaceId,
      projectId: shared.projectId,
      snapshotId: shared.snapshotId,
      engine: "static",
      status: "completed",
      scope: JSON.stringify({ kind: "project" }),
      budget: "{}",
      settings: "{}",
    },
  });
}, 180_000);

afterAll(async () => {
  await w?.close();
});

interface Spectator {
  socket: Socket;
  received: unknown[];
  send(message: string, payload: unknown): Promise<{ ok: boolean; message?: string }>;
  close(): void;
}

async function spectate(token: string, cookie?: string): Promise<Spectator> {
  const socket = connect(w.server.url, {
    forceNew: true,
    reconnection: false,
    transports: ["websocket"],
    auth: { share: token, protocol: ROOM_PROTOCOL_VERSION },
    extraHeaders: { origin: w.server.url, ...(cookie ? { cookie } : {}) },
    timeout: 5000,
  });
  const received: unknown[] = [];
  socket.on("event", (e: unknown) => received.push(e));
  socket.on("revoked", (r: unknown) => received.push({ revoked: r }));
  socket.on("notification", (n: unknown) => received.push({ notification: n }));
  await new Promise<void>((resolve, reject) => {
    socket.once("ready", () => resolve());
    socket.once("connect_error", reject);
  });
  return {
    socket,
    received,
    send: (message, payload) =>
      (socket.timeout(5000) as unknown as Socket).emitWithAck(message, payload) as Promise<{
        ok: boolean;
        message?: string;
      }>,
    close: () => socket.close(),
  };
}

/** What a spectator may see of A: the shared review's own content (its project's name carries A's
 * tag), never members' emails, invite or share tokens, secrets, nor ids of anything else of A. */
function leaksToSpectator(body: unknown): string[] {
  const { owner, member, viewer, inviteToken, shareToken, projectUid, snapshotUid, baseUid, promptUid } = w.a;
  const elsewhere = [projectUid, snapshotUid, baseUid, promptUid, w.a.connectionUid, w.a.runUid, otherReviewUid];
  return findLeaks(body, [
    ...w.secrets,
    owner.email,
    member.email,
    viewer.email,
    inviteToken,
    shareToken,
    ...elsewhere,
  ]);
}

const otherRooms = () => [
  reviewRoom(otherReviewUid),
  projectRoom(w.a.projectUid),
  kbRoom(w.a.baseUid),
  runRoom(w.a.runUid),
  reviewRoom(randomUUID()),
];

async function roomWrites(): Promise<number[]> {
  const db = w.server.services.db;
  return Promise.all([
    db.roomEvent.count(),
    db.roomMessage.count(),
    db.roomMessageEdit.count(),
    db.roomMessageReaction.count(),
    db.findingVote.count(),
    db.reviewSteer.count(),
    db.reviewFinding.count({ where: { resolvedAt: { not: null } } }),
    db.findingDismissal.count(),
    db.notification.count(),
  ]);
}

/** A plausible payload of each message for `room` (valid, so only the right decides). */
function payloadOf(message: ClientMessage, room: string, messageId: string): Record<string, unknown> {
  const base = { room };
  switch (message) {
    case "join":
      return { ...base, afterSeq: 0 };
    case "history":
      return { ...base, afterSeq: 0 };
    case "chat.send":
      return { ...base, body: "a guest speaks" };
    case "chat.edit":
      return { ...base, id: messageId, body: "a guest edits" };
    case "chat.delete":
    case "chat.edits":
      return { ...base, id: messageId };
    case "chat.react":
      return { ...base, id: messageId, emoji: "👍" };
    case "finding.vote":
      return { ...base, fingerprint: w.a.fingerprint, verdict: "false_positive" };
    case "finding.resolve":
      return { ...base, fingerprint: w.a.fingerprint, resolved: true };
    case "steer.hint":
      return { ...base, text: "ignore everything" };
    case "presence.update":
      return { ...base, focus: { kind: "activity" } };
    default:
      return base;
  }
}

describe("a spectator of A's review", () => {
  it("watches the shared review's room, and its answers carry nothing beyond the review", async () => {
    const s = await spectate(w.a.shareToken);
    try {
      const joined = await s.send("join", { room: reviewRoom(w.a.reviewUid), afterSeq: 0 });
      expect(joined.ok).toBe(true);
      expect(leaksToSpectator(joined)).toEqual([]);
      const page = await s.send("chat.page", { room: reviewRoom(w.a.reviewUid) });
      expect(page.ok).toBe(true);
      expect(leaksToSpectator(page)).toEqual([]);
    } finally {
      s.close();
    }
  });

  it("reads the review, its findings and its log over HTTP with no member's email nor ids of A elsewhere", async () => {
    const anonymous = new Client(w.server.url);
    for (const path of ["shares.review", "shares.findings", "shares.events"]) {
      const r = await anonymous.query(path, { token: w.a.shareToken });
      expect(r.status, path).toBe(200);
      expect(leaksToSpectator(r.body), path).toEqual([]);
    }
    const findings = await anonymous.ok<{ fingerprint: string }[]>("query", "shares.findings", {
      token: w.a.shareToken,
    });
    expect(findings.map((f) => f.fingerprint)).toContain(w.a.fingerprint);
  });

  it("is never sent the team's conversations with Argus: not live, not in a page, not over HTTP", async () => {
    const room = reviewRoom(w.a.reviewUid);
    const { events } = w.server.services;
    // An answer streaming into the review's room, as the ask service publishes it: the thread names
    // A's project and snapshot, the answer's text and tool results are the workspace's.
    const now = new Date().toISOString();
    const threadId = randomUUID();
    const answerId = randomUUID();
    const askEvents = [
      {
        type: "ask.thread",
        payload: {
          thread: {
            id: threadId,
            projectUid: w.a.projectUid,
            reviewUid: w.a.reviewUid,
            fingerprint: null,
            snapshotUid: w.a.snapshotUid,
            title: `${w.canaries.tagA} asked`,
            room,
            createdBy: { id: w.a.member.userId, name: "Member" },
            createdAt: now,
            updatedAt: now,
          },
        },
      },
      { type: "ask.tool_call", payload: { threadId, answerId, id: "t1", name: "read_file", input: { path: "a" } } },
      { type: "ask.token", payload: { threadId, answerId, text: `${w.canaries.tagA} answer` } },
    ];
    const s = await spectate(w.a.shareToken);
    try {
      expect((await s.send("join", { room, afterSeq: 0 })).ok).toBe(true);
      for (const e of askEvents) await events.publish(room, e as never);
      // An event spectators are sent, after them: once it arrived, the answer's would have too.
      const marker = await events.publish(room, {
        type: "thread_count",
        payload: { fingerprint: w.a.fingerprint, count: 0 },
      });
      await waitUntil(() => s.received.some((e) => (e as { seq: number }).seq === marker.seq));
      const types = (list: unknown[]) => list.map((e) => (e as { type: string }).type);
      expect(
        types(s.received).filter((t) => t.startsWith("ask.")),
        "sent live",
      ).toEqual([]);
      expect(leaksToSpectator(s.received)).toEqual([]);

      const page = (await s.send("history", { room, afterSeq: 0 })) as unknown as { events: unknown[] };
      expect(types(page.events)).toContain("thread_count");
      expect(
        types(page.events).filter((t) => t.startsWith("ask.")),
        "in a page",
      ).toEqual([]);
      expect(leaksToSpectator(page)).toEqual([]);

      const overHttp = await new Client(w.server.url).ok<unknown[]>("query", "shares.events", {
        token: w.a.shareToken,
        afterSeq: 0,
      });
      expect(types(overHttp)).toContain("thread_count");
      expect(
        types(overHttp).filter((t) => t.startsWith("ask.")),
        "over HTTP",
      ).toEqual([]);
      expect(leaksToSpectator(overHttp)).toEqual([]);

      // The room's members still have them (the review page's conversations panel reads them).
      expect(types(await events.history(room, 0))).toEqual(expect.arrayContaining(["ask.thread", "ask.token"]));
    } finally {
      s.close();
    }
  });

  it("may not enter any other room of A — another review of the same project, the project, a base, a run", async () => {
    const s = await spectate(w.a.shareToken);
    try {
      for (const room of otherRooms()) {
        for (const message of ["join", "history", "chat.page"] as const) {
          const reply = await s.send(message, payloadOf(message, room, randomUUID()));
          expect(reply.ok, `${message} ${room}`).toBe(false);
          expect(reply.message).toMatch(/\S/);
          expect(leaksToSpectator(reply)).toEqual([]);
        }
      }
      // Hostile room names: arrays, another room's prefix, junk.
      for (const room of [[reviewRoom(w.a.reviewUid)], `${reviewRoom(w.a.reviewUid)}x`, { room: "x" }, 42])
        expect((await s.send("join", { room, afterSeq: 0 })).ok).toBe(false);
      for (const room of otherRooms().slice(0, 4))
        await w.server.services.events.publish(room, {
          type: "chat_message",
          payload: {
            id: randomUUID(),
            thread: null,
            author: { id: "probe", name: "Probe" },
            body: w.canaries.tagA,
            version: 1,
            createdAt: new Date().toISOString(),
            editedAt: null,
            deleted: false,
          },
        } as never);
      await new Promise((r) => setTimeout(r, 300));
      expect(s.received, "the spectator received another room's events").toEqual([]);
    } finally {
      s.close();
    }
  });

  it("every message spectators may not send is refused, in every room, and writes nothing", async () => {
    // A member's message, for the messages that name one (edit, delete, edits).
    const teamMessage = await w.server.services.roomChat.send(
      { userId: w.a.member.userId, email: w.a.member.email, name: "Member" },
      { name: reviewRoom(w.a.reviewUid), workspaceId: w.a.workspaceId, role: "member" },
      { body: "a member's words", thread: null },
    );
    const s = await spectate(w.a.shareToken);
    try {
      expect((await s.send("join", { room: reviewRoom(w.a.reviewUid), afterSeq: 0 })).ok).toBe(true);
      const before = await roomWrites();
      const refused = (Object.keys(clientMessages) as ClientMessage[]).filter((m) => !SPECTATOR_MESSAGES[m]);
      expect(refused.length).toBeGreaterThan(8);
      for (const message of refused)
        for (const room of [reviewRoom(w.a.reviewUid), ...otherRooms()]) {
          const reply = await s.send(message, payloadOf(message, room, teamMessage.id));
          expect(reply.ok, `${message} in ${room}`).toBe(false);
          expect(reply.message, `${message} in ${room}`).toMatch(/\S/);
          expect(leaksToSpectator(reply)).toEqual([]);
        }
      expect(await roomWrites(), "a spectator's message wrote something").toEqual(before);
    } finally {
      s.close();
    }
  });

  it("a share link is a spectator's right and nothing else: no invite, no session, no second workspace", async () => {
    const anonymous = new Client(w.server.url);
    expect((await anonymous.query("account.inviteInfo", { token: w.a.shareToken })).status).toBe(404);
    const email = uniqueEmail("guest");
    const signUp = await anonymous.mutate("account.signUp", {
      name: "Guest",
      email,
      password: "a long enough password",
      inviteToken: w.a.shareToken,
    });
    expect(signUp.status).toBeGreaterThanOrEqual(400);
    expect(await w.server.services.db.user.findUnique({ where: { email } })).toBeNull();
    // The outsider's own session beside A's link: the socket is a spectator of A's review only, so
    // not even the outsider's own rooms open on it.
    const bReview = await w.server.services.db.review.findFirst({ where: { workspaceId: w.b.workspaceId } });
    const s = await spectate(w.a.shareToken, w.b.owner.client.cookie);
    try {
      expect((await s.send("join", { room: reviewRoom(w.a.reviewUid), afterSeq: 0 })).ok).toBe(true);
      if (bReview) expect((await s.send("join", { room: reviewRoom(bReview.uid), afterSeq: 0 })).ok).toBe(false);
      expect((await s.send("chat.send", { room: reviewRoom(w.a.reviewUid), body: "as B" })).ok).toBe(false);
    } finally {
      s.close();
    }
  });

  it("has no inbox: a member's notifications never reach the link's socket, and the guest notifies nobody", async () => {
    const db = w.server.services.db;
    const room = reviewRoom(w.a.reviewUid);
    // The member opens the link in a browser where they are signed in: the socket is still a guest's.
    const s = await spectate(w.a.shareToken, w.a.member.client.cookie);
    try {
      expect((await s.send("join", { room, afterSeq: 0 })).ok).toBe(true);
      const own = (await w.server.io.fetchSockets()).find((x) => x.id === s.socket.id);
      expect(own && [...own.rooms].filter((r) => r.startsWith("user:")), "a guest socket is in a user's room").toEqual(
        [],
      );
      const before = await db.notification.count({ where: { userId: w.a.member.userId } });
      // The owner mentions the member: the member is notified, the spectator's socket hears nothing of it.
      await w.server.services.roomChat.send(
        { userId: w.a.owner.userId, email: w.a.owner.email, name: "Owner" },
        { name: room, workspaceId: w.a.workspaceId, role: "owner" },
        { body: `look ${mentionToken({ id: w.a.member.userId, name: "Member" })}`, thread: null },
      );
      expect(await db.notification.count({ where: { userId: w.a.member.userId } })).toBe(before + 1);
      // The guest tries to mention the owner: refused, and nobody is notified.
      const total = await db.notification.count();
      const mention = `hey ${mentionToken({ id: w.a.owner.userId, name: "Owner" })}`;
      const posted = await s.send("chat.send", { room, body: mention });
      expect(posted.ok).toBe(false);
      expect(posted.message).toMatch(/read-only/);
      const replied = await s.send("chat.send", { room, body: mention, thread: w.a.fingerprint });
      expect(replied.ok).toBe(false);
      await new Promise((r) => setTimeout(r, 300));
      expect(await db.notification.count()).toBe(total);
      expect(s.received.filter((e) => typeof e === "object" && e !== null && "notification" in e)).toEqual([]);
      // The inbox itself needs a session: a share link is none.
      const anonymous = new Client(w.server.url);
      for (const path of ["notifications.list", "notifications.unreadCount"])
        expect((await anonymous.query(path, path.endsWith("list") ? { limit: 10 } : undefined)).status, path).toBe(401);
      expect((await anonymous.mutate("notifications.markAllRead", undefined)).status).toBe(401);
    } finally {
      s.close();
    }
  });

  it("a revoked link opens nothing: no handshake, no read, and an open socket loses the room at once", async () => {
    const link = await w.a.member.client.ok<{ uid: string; token: string }>("mutate", "shares.create", {
      reviewUid: w.a.reviewUid,
    });
    const s = await spectate(link.token);
    try {
      expect((await s.send("join", { room: reviewRoom(w.a.reviewUid), afterSeq: 0 })).ok).toBe(true);
      await w.a.member.client.ok("mutate", "shares.revoke", { uid: link.uid });
      // Before revoke answered, the server had taken the room; the message is on its way.
      expect(await w.server.io.in(reviewRoom(w.a.reviewUid)).fetchSockets()).not.toContainEqual(
        expect.objectContaining({ id: s.socket.id }),
      );
      await waitUntil(() => s.received.length > 0);
      expect(s.received).toContainEqual({ revoked: expect.objectContaining({ room: reviewRoom(w.a.reviewUid) }) });
      const anonymous = new Client(w.server.url);
      for (const path of ["shares.review", "shares.findings", "shares.events"])
        expect((await anonymous.query(path, { token: link.token })).status, path).toBe(403);
      const refused = await spectate(link.token).then(
        (c) => (c.close(), null),
        (err: Error & { data?: { status: number } }) => err,
      );
      expect(refused?.data?.status).toBe(403);
    } finally {
      s.close();
    }
  });
});

async function waitUntil(cond: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}
