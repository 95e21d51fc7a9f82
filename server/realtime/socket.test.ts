/** The Socket.IO handshake on the real server: the same session check as tRPC. */
import { io as connect, type Socket } from "socket.io-client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
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

function open(cookie?: string): Socket {
  const socket = connect(server.url, {
    forceNew: true,
    reconnection: false,
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

describe("rooms", () => {
  type Joined = { ok: true; events: { seq: number; type: string; payload: unknown }[] } | { ok: false; error: string };
  const join = (socket: Socket, room: string, afterSeq = 0) =>
    new Promise<Joined>((resolve) => socket.emit("join", room, afterSeq, resolve));

  async function knowledgeRoom(): Promise<string> {
    const uid = crypto.randomUUID();
    await server.services.db.knowledgeBase.create({
      data: { uid, workspaceId: user.workspaceId, name: `kb ${uid.slice(0, 8)}`, chunking: "{}" },
    });
    return `kb:${uid}`;
  }

  it("a member joins, gets the log after afterSeq, then every new event live", async () => {
    const room = await knowledgeRoom();
    await server.services.events.publish(room, "status", { status: "indexing" });
    await server.services.events.publish(room, "progress", { fraction: 0.5 });
    const socket = open(user.client.cookie);
    await outcome(socket);
    const joined = await join(socket, room);
    expect(joined.ok && joined.events.map((e) => [e.seq, e.type])).toEqual([
      [1, "status"],
      [2, "progress"],
    ]);
    const later = await join(socket, room, 1);
    expect(later.ok && later.events.map((e) => e.seq)).toEqual([2]);

    const live: { seq: number; type: string; payload: unknown }[] = [];
    socket.on("event", (e) => live.push(e));
    await server.services.events.publish(room, "token", { text: "Hel" });
    await server.services.events.publish(room, "token", { text: "lo" });
    await server.services.events.publish(room, "done", {});
    await expect.poll(() => live.length).toBe(3);
    expect(live.map((e) => [e.seq, e.type, e.payload])).toEqual([
      [3, "token", { text: "Hel" }],
      [3, "token", { text: "lo" }],
      [4, "done", {}],
    ]);

    // After leaving, nothing more arrives.
    socket.emit("leave", room);
    await new Promise((r) => setTimeout(r, 100));
    await server.services.events.publish(room, "status", { status: "ready" });
    await new Promise((r) => setTimeout(r, 100));
    expect(live).toHaveLength(3);
  });

  it("refuses rooms of other workspaces, unknown rooms and malformed names — and sends them nothing", async () => {
    const room = await knowledgeRoom();
    const stranger = await signUpInNewWorkspace(server, "Stranger");
    const socket = open(stranger.client.cookie);
    await outcome(socket);
    const live: unknown[] = [];
    socket.on("event", (e) => live.push(e));
    const refused = await join(socket, room);
    expect(refused).toEqual({ ok: false, error: "You are not a member of this workspace." });
    expect(await join(socket, `review:${crypto.randomUUID()}`)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/does not exist/),
    });
    expect(await join(socket, "../../etc")).toEqual({ ok: false, error: "That is not a room you can join." });
    expect(await join(socket, [room] as unknown as string)).toEqual({
      ok: false,
      error: "That is not a room you can join.",
    });
    await server.services.events.publish(room, "status", { status: "secret" });
    await new Promise((r) => setTimeout(r, 150));
    expect(live).toEqual([]);
  });
});

describe("rights are checked again while connected", () => {
  const join = (socket: Socket, room: string) =>
    new Promise<{ ok: boolean }>((resolve) => socket.emit("join", room, 0, resolve));

  it("a signed-out session is disconnected; a room its user may no longer watch is left with the reason", async () => {
    const member = await signUpInNewWorkspace(server, "Soon Gone");
    const uid = crypto.randomUUID();
    await server.services.db.knowledgeBase.create({
      data: { uid, workspaceId: user.workspaceId, name: `kb ${uid.slice(0, 8)}`, chunking: "{}" },
    });
    const room = `kb:${uid}`;
    // The member joins the owner's workspace, watches the room, then loses the membership.
    await server.services.db.membership.create({
      data: { workspaceId: user.workspaceId, userId: member.userId, role: "viewer" },
    });
    const watcher = open(member.client.cookie);
    await outcome(watcher);
    expect(await join(watcher, room)).toMatchObject({ ok: true });
    const owner = open(user.client.cookie);
    await outcome(owner);
    expect(await join(owner, room)).toMatchObject({ ok: true });

    const seen: string[] = [];
    watcher.on("event", (e: { type: string }) => seen.push(e.type));
    const revoked: [string, string][] = [];
    watcher.on("revoked", (r: string, reason: string) => revoked.push([r, reason]));
    await server.services.events.publish(room, "status", { status: "before" });
    await expect.poll(() => seen).toEqual(["status"]);

    // Nothing changed: the check leaves everyone alone.
    expect(await recheckSockets(server.io, server.services)).toEqual({ disconnected: 0, revoked: 0 });

    await server.services.db.membership.delete({
      where: { workspaceId_userId: { workspaceId: user.workspaceId, userId: member.userId } },
    });
    expect(await recheckSockets(server.io, server.services)).toEqual({ disconnected: 0, revoked: 1 });
    await expect.poll(() => revoked).toEqual([[room, "You are not a member of this workspace."]]);
    await server.services.events.publish(room, "status", { status: "after" });
    await new Promise((r) => setTimeout(r, 150));
    expect(seen).toEqual(["status"]);
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
  const join = (socket: Socket, room: string) =>
    new Promise<{ ok: boolean }>((resolve) => socket.emit("join", room, 0, resolve));

  it("a removed member's socket leaves the room before the removal returns (not at the 30 s re-check)", async () => {
    const member = await inviteAndSignUp(user, "member", "Removed Soon");
    const uid = crypto.randomUUID();
    await server.services.db.knowledgeBase.create({
      data: { uid, workspaceId: user.workspaceId, name: `kb ${uid.slice(0, 8)}`, chunking: "{}" },
    });
    const room = `kb:${uid}`;
    const watcher = open(member.client.cookie);
    await outcome(watcher);
    expect(await join(watcher, room)).toMatchObject({ ok: true });
    const seen: string[] = [];
    watcher.on("event", (e: { payload: { status: string } }) => seen.push(e.payload.status));
    const revoked: [string, string][] = [];
    watcher.on("revoked", (r: string, reason: string) => revoked.push([r, reason]));

    // A role change that keeps read access leaves the socket where it is.
    await user.client.ok("mutate", "workspaces.changeRole", {
      workspaceId: user.workspaceId,
      userId: member.userId,
      role: "viewer",
    });
    await server.services.events.publish(room, "status", { status: "still watching" });
    await expect.poll(() => seen).toEqual(["still watching"]);

    const started = Date.now();
    await user.client.ok("mutate", "workspaces.removeMember", { workspaceId: user.workspaceId, userId: member.userId });
    // Published the moment the removal returned: it must not reach the removed member.
    await server.services.events.publish(room, "status", { status: "after removal" });
    await expect.poll(() => revoked, { timeout: 2000 }).toEqual([[room, "You are not a member of this workspace."]]);
    expect(Date.now() - started).toBeLessThan(2000);
    await new Promise((r) => setTimeout(r, 150));
    expect(seen).toEqual(["still watching"]);
    // Still connected (the session is valid), just without the room; joining again is refused.
    expect(watcher.connected).toBe(true);
    expect(await join(watcher, room)).toMatchObject({ ok: false });
  });
});
