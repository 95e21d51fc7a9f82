/**
 * Connection state recovery on a Redis-backed node (REDIS_URL; skipped without it): a socket that
 * drops and comes back within the recovery window gets its room and the events it missed — unless
 * its user lost the right to the room meanwhile: then neither the room nor its missed events come
 * back (recovery.ts checks them before Socket.IO sends anything).
 */
import { io as connect, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestConfig } from "../../test/helpers/db.ts";
import { sayWhySkipped, testRedis } from "../../test/helpers/redis.ts";
import { createReviewRow } from "../../test/helpers/review-row.ts";
import {
  signUp,
  signUpInNewWorkspace,
  startTestServer,
  type TestServer,
  type TestUser,
} from "../../test/helpers/server.ts";
import type { RoomEvent } from "../shared/room-events.ts";
import type { ClientToServerEvents, ServerToClientEvents } from "../shared/room-protocol.ts";
import { ROOM_PROTOCOL_VERSION } from "../shared/room-protocol.ts";
import { reviewRoom, type RoomName } from "../shared/rooms.ts";

const { redis, skip } = await testRedis("recovery");
sayWhySkipped("server/realtime/recovery.redis.test.ts", skip);

let server: TestServer;
let owner: TestUser;
const sockets: Socket[] = [];
beforeAll(async () => {
  if (!redis) return;
  server = await startTestServer(
    await createTestConfig({ REDIS_URL: redis.settings.url, REDIS_PREFIX: redis.settings.prefix }),
  );
  owner = await signUp(server.url, { name: "Olga Owner" });
}, 120_000);
afterAll(async () => {
  for (const s of sockets) s.close();
  await server?.stop();
  await redis?.cleanup();
});

type Client = Socket<ServerToClientEvents, ClientToServerEvents>;

/** A socket that reconnects by itself (as the browser's does) and records the events it gets. */
async function watcher(cookie: string, room: RoomName) {
  const s: Client = connect(server.url, {
    forceNew: true,
    auth: { protocol: ROOM_PROTOCOL_VERSION },
    transports: ["websocket"],
    extraHeaders: { cookie },
    reconnectionDelay: 100,
    reconnectionDelayMax: 200,
  });
  sockets.push(s);
  await new Promise<void>((resolve, reject) => {
    s.once("ready", () => resolve());
    s.once("connect_error", reject);
  });
  const events: RoomEvent[] = [];
  s.on("event", (e) => events.push(e));
  const joined = await new Promise<{ ok: boolean }>((resolve) => s.emit("join", { room, afterSeq: 0 }, resolve));
  expect(joined.ok).toBe(true);
  return { s, events };
}

/** The recovery sessions the node has stored (one per socket that dropped and may come back). */
async function storedSessions(): Promise<number> {
  return (await redis!.client.keys(`${redis!.settings.prefix}:socket.io-session:*`)).length;
}

/**
 * Drops the connection under the socket (not a disconnect the client asked for) and lets it come
 * back once the node has stored its session: a reconnect that beat the node's write would be a new
 * session (the browser then catches up from the log; that path is room-delivery's, not this test's).
 */
async function dropAndWaitBack(s: Client, meanwhile: () => Promise<void>) {
  const before = await storedSessions();
  s.io.reconnection(false);
  const dropped = new Promise<void>((resolve) => s.once("disconnect", () => resolve()));
  s.io.engine.close();
  await dropped;
  await meanwhile();
  await expect.poll(storedSessions, { timeout: 5000, interval: 20 }).toBeGreaterThan(before);
  const back = new Promise<void>((resolve) => s.once("connect", () => resolve()));
  s.io.reconnection(true);
  s.connect();
  await back;
  await new Promise((r) => setTimeout(r, 300));
}

const status = (n: number) => ({ type: "review_status", payload: { status: n % 2 ? "running" : "queued" } }) as const;

describe.skipIf(!redis)("connection state recovery", () => {
  it("a socket back within the window gets its room and the events it missed", async () => {
    const room = reviewRoom((await createReviewRow(server.services.db, owner.workspaceId)).uid);
    const w = await watcher(owner.client.cookie, room);
    await server.services.events.publish(room, status(1));
    await expect.poll(() => w.events.length).toBe(1);
    await dropAndWaitBack(w.s, async () => {
      await server.services.events.publish(room, status(2));
      await server.services.events.publish(room, status(3));
    });
    expect(w.s.recovered).toBe(true);
    await expect.poll(() => w.events.map((e) => e.seq)).toEqual([1, 2, 3]);
    // Still in the room, without joining again.
    await server.services.events.publish(room, status(4));
    await expect.poll(() => w.events.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
  });

  it("a user removed meanwhile gets neither the room nor its missed events back", async () => {
    const room = reviewRoom((await createReviewRow(server.services.db, owner.workspaceId)).uid);
    const gone = await signUpInNewWorkspace(server, "Gone Soon");
    await server.services.db.membership.create({
      data: { workspaceId: owner.workspaceId, userId: gone.userId, role: "viewer" },
    });
    const w = await watcher(gone.client.cookie, room);
    await server.services.events.publish(room, status(1));
    await expect.poll(() => w.events.length).toBe(1);
    await dropAndWaitBack(w.s, async () => {
      await server.services.db.membership.delete({
        where: { workspaceId_userId: { workspaceId: owner.workspaceId, userId: gone.userId } },
      });
      await server.services.events.publish(room, status(2));
    });
    expect(w.s.recovered).toBe(true); // the session came back (the user is still signed in) …
    await server.services.events.publish(room, status(3));
    await new Promise((r) => setTimeout(r, 500));
    expect(w.events.map((e) => e.seq)).toEqual([1]); // … but not the room, nor what it missed
  });
});
