/**
 * Floods of room messages (issue 25, holes 3 and 4) against the real server: a share-link guest or a
 * member sending thousands of `history`, `join`, `chat.page` or `finding.vote` messages as fast as
 * the socket carries them. Each flood must get `rate_limited` replies with when to retry, then lose
 * its socket; /api/health keeps answering meanwhile (its p99 is benched); a member in another room is
 * not slowed; votes stored stay bounded. Before the limits (server/rooms/message-limits.ts), 3,000
 * history reads of a 1,000-event room stopped /api/health for minutes and no reply was ever refused.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DROP_AFTER_REFUSALS, MESSAGE_BUDGETS } from "../../server/rooms/message-limits.ts";
import {
  type ClientMessage,
  PROTOCOL_OUTDATED,
  REPLY_MAX_BYTES,
  ROOM_PROTOCOL_VERSION,
} from "../../server/shared/room-protocol.ts";
import { jsonBytes } from "../../server/shared/reply-bytes.ts";
import { reviewRoom, type RoomName } from "../../server/shared/rooms.ts";
import { createReviewRow } from "../helpers/review-row.ts";
import { createDb, type Db } from "../../server/db/client.ts";
import { createTestConfig, type TestConfig } from "../helpers/db.ts";
import { inviteAndSignUp, signUp, type TestUser } from "../helpers/server.ts";
import { flood, type FloodOutcome, openSocket, probeHealth } from "./support/flood.ts";
import { type ServerProcess, startServerProcess } from "./support/process-server.ts";

/**
 * The server runs in its own process, as in production: the flooding client's own work (encoding
 * thousands of messages, decoding replies) must not count as the server's stall.
 */
let server: ServerProcess;
let t: TestConfig;
/** The same database, for setting up rows the test needs (a long room log, messages). */
let db: Db;
let owner: TestUser;
let member: TestUser;
/** A review room holding 1,000 events of about 275 bytes (the audit's room), and its share token. */
let floodRoom: RoomName<"review">;
let shareToken: string;
/** Another review's room, watched by the owner while others flood. */
let quietRoom: RoomName<"review">;

const EVENTS = 1000;
const FLOOD = 3000;
/** /api/health p99 at rest, measured in the same run before any flood (the machine's own noise). */
let restingP99 = 0;
/**
 * The bound this test holds health's p99 to during a flood: 5 s, or four times the resting p99 plus
 * a second on a loaded machine. Before the limits, health stopped answering for minutes (issue 25),
 * so this fails by two orders of magnitude if the limits go. The 200 ms target is a speed figure and
 * is measured where speed is measured, next to health at rest in the same run: `npm run bench --
 * floods` (bench/floods.ts). A timed test on a shared 2-core machine would only measure the machine.
 */
const healthBound = () => Math.max(5000, 4 * restingP99 + 1000);
/** Each flood's figures, printed at the end (the report's before/after). */
const figures: Record<string, unknown>[] = [];

async function reviewRoomOf(): Promise<RoomName<"review">> {
  const r = await createReviewRow(db, owner.workspaceId, { findings: [{ fingerprint: "fp-1" }] });
  return reviewRoom(r.uid);
}

async function addEvents(room: RoomName, events: number, textChars: number): Promise<void> {
  await db.roomEvent.createMany({
    data: Array.from({ length: events }, (_, i) => ({
      room,
      seq: i + 1,
      type: "token",
      payload: JSON.stringify({ text: `${i} ${"x".repeat(textChars)}`, phase: "exploring" }),
    })),
  });
}

beforeAll(async () => {
  t = await createTestConfig();
  server = await startServerProcess({ ...t.env, LOG_LEVEL: "info" });
  db = await createDb(t.config.db);
  owner = await signUp(server.url, { name: "Olga Owner" });
  member = await inviteAndSignUp(owner, "member", "Mia Member");
  floodRoom = await reviewRoomOf();
  quietRoom = await reviewRoomOf();
  const link = await owner.client.ok<{ token: string }>("mutate", "shares.create", {
    reviewUid: floodRoom.slice("review:".length),
  });
  shareToken = link.token;
  await addEvents(floodRoom, EVENTS, 200);
  await addEvents(quietRoom, 50, 200);
  const rest = probeHealth(server.url);
  await rest.warm();
  await new Promise((r) => setTimeout(r, 3000));
  restingP99 = (await rest.stop()).p99;
}, 180_000);

afterAll(async () => {
  console.log(JSON.stringify({ restingP99, bound: healthBound(), floods: figures }, null, 1));
  await server?.stop();
  await db?.$disconnect();
  await t?.cleanup();
});

const open = (auth: Parameters<typeof openSocket>[1]) => openSocket(server.url, auth);

function expectRefusedThenDropped(out: FloodOutcome, message: ClientMessage, burst: number) {
  figures.push({ message, ok: out.ok, refused: out.refused.length, dropped: out.dropped, healthP99: out.healthP99 });
  expect(out.dropped, `${message}: the flooding socket is disconnected`).toBe(true);
  // At most the burst plus what refilled during the flood got through.
  expect(out.ok, `${message}: allowed replies`).toBeLessThanOrEqual(burst + 5);
  const limited = out.refused.filter((r) => r.code === "rate_limited");
  expect(limited.length, `${message}: rate_limited replies`).toBeGreaterThanOrEqual(DROP_AFTER_REFUSALS - 1);
  for (const r of limited) {
    expect(r.retryAfterMs).toBeGreaterThan(0);
    expect(r.message).toMatch(/too (fast|many).*try again in \d+ s\.$/i);
  }
  expect(out.healthP99, `${message}: /api/health p99 (ms) over ${out.healthCount} probes`).toBeLessThan(healthBound());
}

describe("socket floods", () => {
  it("a share-link guest's 3,000 history reads of a 1,000-event room: refused, dropped; health and another room unaffected", async () => {
    const guest = await open({ share: shareToken });
    expect((await guest.send("join", { room: floodRoom, afterSeq: EVENTS })).ok).toBe(true);
    const bystander = { client: await open({ cookie: owner.client.cookie }), room: quietRoom, replies: [], ms: [] };
    expect((await bystander.client.send("join", { room: quietRoom, afterSeq: 0 })).ok).toBe(true);

    const out = await flood(server.url, guest, "history", () => ({ room: floodRoom, afterSeq: 0 }), FLOOD, bystander);
    expectRefusedThenDropped(out, "history", MESSAGE_BUDGETS.history.guest!.burst);
    // The member in another room read their room throughout, every time in full and promptly.
    expect(bystander.replies.length).toBeGreaterThan(3);
    for (const r of bystander.replies) expect(r).toMatchObject({ ok: true, more: false });
    expect(Math.max(...bystander.ms), "the bystander's slowest read (ms)").toBeLessThan(1000);
    bystander.client.socket.close();
  });

  it("a member's 3,000 history reads: refused, dropped; health unaffected", async () => {
    const flooder = await open({ cookie: member.client.cookie });
    const out = await flood(server.url, flooder, "history", () => ({ room: floodRoom, afterSeq: 0 }), FLOOD);
    expectRefusedThenDropped(out, "history", MESSAGE_BUDGETS.history.member.burst);
  });

  it("a join flood (guest) and a chat.page flood (member): refused, dropped", async () => {
    const guest = await open({ share: shareToken });
    const joins = await flood(server.url, guest, "join", () => ({ room: floodRoom, afterSeq: 0 }), 1000);
    expectRefusedThenDropped(joins, "join", MESSAGE_BUDGETS.join.guest!.burst);

    await db.roomMessage.createMany({
      data: Array.from({ length: 60 }, (_, i) => ({
        uid: crypto.randomUUID(),
        room: floodRoom,
        authorId: owner.userId,
        body: `message ${i} ${"y".repeat(500)}`,
        createdAt: new Date(Date.now() - 60_000 + i),
      })),
    });
    const flooder = await open({ cookie: member.client.cookie });
    const pages = await flood(server.url, flooder, "chat.page", () => ({ room: floodRoom }), 1000);
    expectRefusedThenDropped(pages, "chat.page", MESSAGE_BUDGETS["chat.page"].member.burst);
  });

  it("a vote flood is limited, and the events it stores stay bounded", async () => {
    const before = await db.roomEvent.count({ where: { room: floodRoom } });
    const flooder = await open({ cookie: member.client.cookie });
    const out = await flood(
      server.url,
      flooder,
      "finding.vote",
      (i) => ({ room: floodRoom, fingerprint: "fp-1", verdict: i % 2 ? "real" : "false_positive" }),
      400,
    );
    expectRefusedThenDropped(out, "finding.vote", MESSAGE_BUDGETS["finding.vote"].member.burst);
    const stored = (await db.roomEvent.count({ where: { room: floodRoom } })) - before;
    // Each applied vote stores its events; unlimited, 400 votes stored 800.
    expect(stored).toBeGreaterThan(0);
    expect(stored).toBeLessThanOrEqual(3 * (MESSAGE_BUDGETS["finding.vote"].member.burst + 5));
  });

  it("replies are paged by bytes as well as count: none exceeds the budget, and paging reads the whole log", async () => {
    const room = await reviewRoomOf();
    await addEvents(room, 3000, 400); // about 1.3 MB of events
    const c = await open({ cookie: owner.client.cookie });
    let reply = await c.send("join", { room, afterSeq: 0 });
    const seen: number[] = [];
    for (;;) {
      if (!reply.ok) throw new Error(reply.message);
      const events = reply.events as { seq: number }[];
      expect(jsonBytes(events)).toBeLessThanOrEqual(REPLY_MAX_BYTES);
      seen.push(...events.map((e) => e.seq));
      if (!reply.more) break;
      reply = await c.send("history", { room, afterSeq: seen.at(-1)! });
    }
    expect(seen).toEqual(Array.from({ length: 3000 }, (_, i) => i + 1));
    c.socket.close();
  });

  it("a client of another protocol version (or none) is told to reload", async () => {
    for (const protocol of [null, ROOM_PROTOCOL_VERSION - 1]) {
      const refused = await open({ cookie: owner.client.cookie, protocol }).then(
        () => null,
        (err: Error & { data?: { code?: string; message?: string } }) => err.data,
      );
      expect(refused).toMatchObject({ code: PROTOCOL_OUTDATED, message: expect.stringMatching(/reload the page/) });
    }
  });
});
