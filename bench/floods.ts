/**
 * `npm run bench -- floods` (issue 25): how long /api/health takes to answer while a room socket is
 * flooded with 3,000 messages (history reads of a 1,000-event room, joins, chat pages, votes), next
 * to the same probe at rest in the same run (the baseline: the machine's own noise). Target: p99
 * ≤ 200 ms during a flood. The server runs in its own process, as in production; the probe runs on a
 * worker thread, so the flooding client's own work is not counted as the server's.
 *
 * Each flood runs ROUNDS times, each round by a new member (or through a new share link), so every
 * round meets fresh limits as an attacker's first flood would. test/security/socket-floods.test.ts
 * asserts what the limits do (refused, dropped, bounded); this measures what the flood costs.
 */
import { summarize } from "./_stats.ts";
import { createDb, type Db } from "../server/db/client.ts";
import type { ClientMessage } from "../server/shared/room-protocol.ts";
import { reviewRoom, type RoomName } from "../server/shared/rooms.ts";
import { createTestConfig } from "../test/helpers/db.ts";
import { createReviewRow } from "../test/helpers/review-row.ts";
import { inviteAndSignUp, signUp, type TestUser } from "../test/helpers/server.ts";
import { flood, openSocket, probeHealth } from "../test/security/support/flood.ts";
import { startServerProcess } from "../test/security/support/process-server.ts";

const ROUNDS = Number(process.env.FLOOD_ROUNDS ?? 5);
const EVENTS = 1000;
const REST_MS = 5000;

interface Flood {
  message: ClientMessage;
  count: number;
  as: "guest" | "member";
  payload: (room: RoomName, i: number) => unknown;
}

const FLOODS: Record<string, Flood> = {
  historyGuest: { message: "history", count: 3000, as: "guest", payload: (room) => ({ room, afterSeq: 0 }) },
  historyMember: { message: "history", count: 3000, as: "member", payload: (room) => ({ room, afterSeq: 0 }) },
  joinGuest: { message: "join", count: 3000, as: "guest", payload: (room) => ({ room, afterSeq: 0 }) },
  chatPageMember: { message: "chat.page", count: 3000, as: "member", payload: (room) => ({ room }) },
  voteMember: {
    message: "finding.vote",
    count: 3000,
    as: "member",
    payload: (room, i) => ({ room, fingerprint: "fp-1", verdict: i % 2 ? "real" : "false_positive" }),
  },
};

export default async function floods() {
  const t = await createTestConfig();
  // info: the start-up line ("listening") is how startServerProcess knows the server is up.
  const server = await startServerProcess({ ...t.env, LOG_LEVEL: "info" });
  const db = await createDb(t.config.db);
  try {
    const owner = await signUp(server.url, { name: "Olga Owner" });
    const room = await floodedRoom(db, owner);
    const rest = probeHealth(server.url);
    await rest.warm();
    await new Promise((r) => setTimeout(r, REST_MS));
    const resting = (await rest.stop()).samples;

    const results: Record<string, unknown> = {};
    for (const [name, f] of Object.entries(FLOODS)) {
      const health: number[] = [];
      let dropped = 0;
      let allowed = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const socket = await floodingSocket(server.url, owner, room, f.as);
        const out = await flood(server.url, socket, f.message, (i) => f.payload(room, i), f.count);
        health.push(...out.healthMs);
        if (out.dropped) dropped++;
        allowed += out.ok;
      }
      results[name] = {
        messages: f.count,
        rounds: ROUNDS,
        socketDropped: `${dropped}/${ROUNDS}`,
        repliesAllowedPerRound: allowed / ROUNDS,
        healthMs: summarize(health),
        healthP99Ms: p99(health),
      };
    }
    return {
      baseline: { healthAtRestMs: summarize(resting), healthP99Ms: p99(resting) },
      floods: results,
      targetHealthP99Ms: 200,
      worstFloodHealthP99Ms: Math.max(...Object.values(results).map((r) => (r as { healthP99Ms: number }).healthP99Ms)),
    };
  } finally {
    await server.stop();
    await db.$disconnect();
    await t.cleanup();
  }
}

/** A review room with a 1,000-event log of ~275-byte events and 60 chat messages (the audit's room). */
async function floodedRoom(db: Db, owner: TestUser): Promise<RoomName<"review">> {
  const review = await createReviewRow(db, owner.workspaceId, { findings: [{ fingerprint: "fp-1" }] });
  const room = reviewRoom(review.uid);
  await db.roomEvent.createMany({
    data: Array.from({ length: EVENTS }, (_, i) => ({
      room,
      seq: i + 1,
      type: "token",
      payload: JSON.stringify({ text: `${i} ${"x".repeat(200)}`, phase: "exploring" }),
    })),
  });
  await db.roomMessage.createMany({
    data: Array.from({ length: 60 }, (_, i) => ({
      uid: crypto.randomUUID(),
      room,
      authorId: owner.userId,
      body: `message ${i} ${"y".repeat(500)}`,
      createdAt: new Date(Date.now() - 60_000 + i),
    })),
  });
  return room;
}

/** A new member's socket, or a guest's through a new share link, joined to the room. */
async function floodingSocket(url: string, owner: TestUser, room: RoomName<"review">, as: "guest" | "member") {
  if (as === "member") {
    const member = await inviteAndSignUp(owner, "member", "Flooding Member");
    return openSocket(url, { cookie: member.client.cookie });
  }
  const link = await owner.client.ok<{ token: string }>("mutate", "shares.create", {
    reviewUid: room.slice("review:".length),
  });
  const guest = await openSocket(url, { share: link.token });
  await guest.send("join", { room, afterSeq: EVENTS });
  return guest;
}

function p99(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]! * 10) / 10;
}
