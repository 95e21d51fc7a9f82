/**
 * Co-editing under load (issue 29, Performance; `npm run bench -- coedit`): 10 editors, each typing 5
 * characters a second into one pipeline's shared draft for 60 s (COEDIT_SECONDS shortens it) — the
 * real server, real Socket.IO clients signed in (an owner and nine members invited by the owner), the
 * browser's own DocClient. Measured: remote edit latency (from the keystroke to the edit applied in
 * each other editor's doc) p50/p99, convergence (every editor and a late newcomer hold the same text),
 * and the bytes stored per minute of editing. Targets for p99: 50 ms on one node, 100 ms across nodes.
 *
 * - oneNode: one server in the bench's process, on a throwaway database of the provider DATABASE_URL
 *   selects (SQLite when unset).
 * - twoNodes: the same across two web nodes — two Argus processes (test/scale/support/cluster.ts) on one
 *   PostgreSQL database and one private Redis — editors alternating between them (5 on each); latency
 *   also split into same-node and across-node pairs, a late newcomer on each node. Needs PostgreSQL
 *   (DATABASE_URL=postgres://…, else postgres://root@127.0.0.1:5432/postgres is tried) and redis-server;
 *   without them the section is a string saying why it was skipped.
 * - baselineRawSocketIo: the same keystrokes relayed raw through a bare Socket.IO room (no Yjs, no
 *   storage, no authorization) on the same machine.
 */
import { createServer } from "node:http";
import os from "node:os";
import type { AddressInfo } from "node:net";
import { Server } from "socket.io";
import { io as connect, type Socket } from "socket.io-client";
import * as Y from "yjs";
import { FROM_SERVER } from "../app/_lib/coedit/doc-client.ts";
import { createDb, type Db } from "../server/db/client.ts";
import { createPipelineRow, type Editor, openEditor, settled, textOf } from "../test/helpers/coedit.ts";
import { createTestConfig, testProvider, type TestConfig } from "../test/helpers/db.ts";
import { openRoomClient } from "../test/helpers/room-client.ts";
import { inviteAndSignUp, signUp, startTestServer, type TestUser } from "../test/helpers/server.ts";
import {
  hasRedisServer,
  startNode,
  startPrivateRedis,
  type NodeProcess,
  type PrivateRedis,
} from "../test/scale/support/cluster.ts";

const EDITORS = 10;
const CHARS_PER_SEC = 5;
const SECONDS = Number(process.env.COEDIT_SECONDS ?? 60);
/** The PostgreSQL server the two-node run creates its database on when DATABASE_URL is unset. */
const DEFAULT_POSTGRES = "postgres://root@127.0.0.1:5432/postgres";

const round = (n: number) => Math.round(n * 100) / 100;
function quantiles(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => round(s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN);
  return { n: s.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: round(s[s.length - 1] ?? NaN) };
}

/** Types CHARS_PER_SEC characters a second for SECONDS, each editor offset so keystrokes interleave. */
async function typeFor(editors: number, type: (editor: number, i: number) => void): Promise<void> {
  const interval = 1000 / CHARS_PER_SEC;
  const total = Math.floor(SECONDS * CHARS_PER_SEC);
  const start = performance.now();
  const next = new Array<number>(editors).fill(0);
  for (;;) {
    const now = performance.now() - start;
    let left = false;
    for (let e = 0; e < editors; e++) {
      while (next[e]! < total && now >= next[e]! * interval + (e * interval) / editors) type(e, next[e]!++);
      if (next[e]! < total) left = true;
    }
    if (!left) return;
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** The editors' accounts: the owner signs up on `url` (the install's first user), the others through the owner's invites, as members. */
async function signUpEditors(url: string): Promise<TestUser[]> {
  const owner = await signUp(url, { name: "Editor 0" });
  const users = [owner];
  for (let i = 1; i < EDITORS; i++) users.push(await inviteAndSignUp(owner, "member", `Editor ${i}`));
  return users;
}

interface Setup {
  /** The nodes: editor i (and its user, users[i]) connects to urls[i % urls.length]. */
  urls: string[];
  users: TestUser[];
  /** The database the nodes share (for the stored bytes). */
  db: Db;
  room: string;
}

/**
 * Records each keystroke's time by its Yjs id (client, clock) and, decoding every update an editor
 * receives from the server, the delay to each arrival — also split by whether sender and receiver
 * are on the same node.
 */
function trackLatencies(editors: Editor[], nodeOf: (editor: number) => number) {
  const typedAt = new Map<string, { at: number; node: number }>();
  const all: number[] = [];
  const sameNode: number[] = [];
  const acrossNodes: number[] = [];
  editors.forEach((e, receiver) =>
    e.doc.on("update", (update: Uint8Array, origin: unknown) => {
      if (origin !== FROM_SERVER) return;
      const now = performance.now();
      for (const s of Y.decodeUpdate(update).structs) {
        if (!(s instanceof Y.Item)) continue;
        for (let c = 0; c < s.length; c++) {
          const typed = typedAt.get(`${s.id.client}:${s.id.clock + c}`);
          if (typed === undefined) continue;
          all.push(now - typed.at);
          (typed.node === nodeOf(receiver) ? sameNode : acrossNodes).push(now - typed.at);
        }
      }
    }),
  );
  return { typedAt, all, sameNode, acrossNodes };
}

/** The draft's bytes in the database now: its snapshot plus the updates not yet compacted into it. */
async function storedBytes(db: Db, room: string) {
  const updates = await db.coeditUpdate.findMany({ where: { room }, select: { data: true } });
  const doc = await db.coeditDoc.findUniqueOrThrow({ where: { room } });
  const total = doc.snapshot.byteLength + updates.reduce((n, u) => n + u.data.byteLength, 0);
  return { total, snapshot: doc.snapshot.byteLength, updates: updates.length };
}

/** The measurement itself, on whichever nodes `setup` names: typing, latency, convergence, storage. */
async function measure({ urls, users, db, room }: Setup) {
  const nodeOf = (editor: number) => editor % urls.length;
  const editors: Editor[] = [];
  try {
    for (const [i, u] of users.entries())
      editors.push(await openEditor(await openRoomClient(urls[nodeOf(i)]!, u.client.cookie), room));
    const latencies = trackLatencies(editors, nodeOf);
    const started = performance.now();
    await typeFor(EDITORS, (i, n) => {
      const e = editors[i]!;
      const text = e.doc.getText("yaml");
      const id = `${e.doc.clientID}:${Y.getState(e.doc.store, e.doc.clientID)}`;
      latencies.typedAt.set(id, { at: performance.now(), node: nodeOf(i) });
      // Each types on a line of their own, near the others (the same region of the file).
      text.insert(Math.min(text.length, 40 + i), String.fromCharCode(97 + ((n + i) % 26)));
    });
    const typingMs = performance.now() - started;
    const text = await settled(editors, "yaml", 60_000);
    // A newcomer on each node, after the typing: the draft as that node serves it from the database.
    const late: Editor[] = [];
    for (const url of urls) {
      late.push(await openEditor(await openRoomClient(url, users[0]!.client.cookie), room));
      editors.push(late.at(-1)!);
    }
    const converged = editors.every((e) => textOf(e) === text);

    const stored = await storedBytes(db, room);
    const keystrokes = EDITORS * Math.floor(SECONDS * CHARS_PER_SEC);
    return {
      editors: EDITORS,
      ...(urls.length > 1 ? { editorsPerNode: Math.ceil(EDITORS / urls.length) } : {}),
      charsPerSecondEach: CHARS_PER_SEC,
      seconds: SECONDS,
      keystrokes,
      remoteLatencyMs: quantiles(latencies.all),
      ...(urls.length > 1
        ? {
            remoteLatencyMsSameNode: quantiles(latencies.sameNode),
            remoteLatencyMsAcrossNodes: quantiles(latencies.acrossNodes),
          }
        : {}),
      // Every keystroke reached every other editor.
      deliveries: { expected: keystrokes * (EDITORS - 1), measured: latencies.all.length },
      converged,
      lateNewcomers: late.length,
      finalTextLength: text.length,
      storedBytesNow: stored.total,
      storedBytesPerMinute: Math.round(stored.total / (typingMs / 60_000)),
      snapshotBytes: stored.snapshot,
      updatesNotYetCompacted: stored.updates,
    };
  } finally {
    for (const e of editors) {
      e.close();
      e.client.close();
    }
  }
}

async function oneNode() {
  const server = await startTestServer();
  try {
    const users = await signUpEditors(server.url);
    const room = await createPipelineRow(server.services.db, users[0]!.workspaceId);
    return {
      database: testProvider(),
      ...(await measure({ urls: [server.url], users, db: server.services.db, room })),
    };
  } finally {
    await server.stop();
  }
}

/** Why the two-node run cannot run here, if it cannot; else the PostgreSQL server to create its database on. */
function twoNodePrerequisites(): { skipped: string } | { postgres: string } {
  const url = process.env.DATABASE_URL;
  if (url && testProvider() !== "postgres")
    return { skipped: "DATABASE_URL is not a postgres:// URL: several nodes need one PostgreSQL database." };
  if (!hasRedisServer())
    return {
      skipped: "redis-server is not installed (apt-get install redis-server): the run starts a Redis of its own.",
    };
  return { postgres: url || DEFAULT_POSTGRES };
}

/** A throwaway database on `postgres` (createTestConfig reads DATABASE_URL; it is put back afterwards). */
async function postgresTestConfig(postgres: string): Promise<TestConfig> {
  const before = process.env.DATABASE_URL;
  process.env.DATABASE_URL = postgres;
  try {
    return await createTestConfig({ AUTH_SECRET: "bench-coedit-secret-0123456789abcdef" });
  } finally {
    if (before === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = before;
  }
}

/** SIGTERM (the node closes cleanly), SIGKILL if it has not exited within 15 s. */
async function stopNode(n: NodeProcess): Promise<void> {
  const timer = setTimeout(() => n.child.kill("SIGKILL"), 15_000);
  await n.kill("SIGTERM").catch(() => undefined);
  clearTimeout(timer);
}

async function twoNodes(): Promise<Record<string, unknown> | string> {
  const prerequisites = twoNodePrerequisites();
  if ("skipped" in prerequisites) return `skipped: ${prerequisites.skipped}`;
  let t: TestConfig;
  try {
    t = await postgresTestConfig(prerequisites.postgres);
  } catch (err) {
    const where = new URL(prerequisites.postgres).host;
    return `skipped: no PostgreSQL database could be created on ${where}: ${(err as Error).message}`;
  }
  let redis: PrivateRedis | undefined;
  const nodes: NodeProcess[] = [];
  let db: Db | undefined;
  try {
    redis = await startPrivateRedis();
    const env = { ...t.env, REDIS_URL: redis.url, REDIS_PREFIX: "argus-bench-coedit", LOG_LEVEL: "error" };
    // Both start together (one migrates, the other waits on its lock); a node that did start is
    // stopped below even when the other failed.
    const started = await Promise.allSettled([startNode("web", env), startNode("web", env)]);
    for (const s of started) if (s.status === "fulfilled") nodes.push(s.value);
    const failed = started.find((s) => s.status === "rejected");
    if (failed) throw failed.reason;
    db = await createDb(t.config.db);
    const urls = nodes.map((n) => n.url);
    const users = await signUpEditors(urls[0]!);
    const room = await createPipelineRow(db, users[0]!.workspaceId);
    return { database: "postgres", redis: "private", ...(await measure({ urls, users, db, room })) };
  } finally {
    await db?.$disconnect().catch(() => undefined);
    for (const n of nodes) await stopNode(n);
    await redis?.stop().catch(() => undefined);
    await t.cleanup();
  }
}

/** The baseline: the same keystrokes, each a message relayed to the room's other sockets by Socket.IO. */
async function rawRun() {
  const http = createServer();
  const io = new Server(http, { serveClient: false });
  io.on("connection", (s) => {
    void s.join("room");
    s.on("edit", (m: unknown) => s.to("room").emit("edit", m));
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const sockets: Socket[] = [];
  for (let i = 0; i < EDITORS; i++) {
    const s = connect(url, { forceNew: true, transports: ["websocket"] });
    await new Promise<void>((r) => s.once("connect", () => r()));
    sockets.push(s);
  }
  const latencies: number[] = [];
  for (const s of sockets)
    s.on("edit", (m: { at: number }) => {
      latencies.push(performance.now() - m.at);
    });
  await typeFor(EDITORS, (i, n) => {
    sockets[i]!.emit("edit", { at: performance.now(), pos: 40 + i, text: String.fromCharCode(97 + ((n + i) % 26)) });
  });
  await new Promise((r) => setTimeout(r, 500));
  for (const s of sockets) s.close();
  await new Promise<void>((r) => void io.close(() => r()));
  return { remoteLatencyMs: quantiles(latencies), deliveries: latencies.length };
}

export default async function coedit() {
  // The machine may be shared: how busy it was (load averages) when the runs began and ended.
  const loadAtStart = os.loadavg().map(round);
  const one = await oneNode();
  const raw = await rawRun();
  const loadBeforeTwoNodes = os.loadavg().map(round);
  const two = await twoNodes();
  return {
    note:
      "oneNode: the server and the 10 clients in the bench's process; twoNodes: two Argus processes, the clients " +
      "in the bench's process; all on the same 2 shared cores.",
    loadAverages: { atStart: loadAtStart, beforeTwoNodes: loadBeforeTwoNodes, atEnd: os.loadavg().map(round) },
    oneNode: one,
    twoNodes: two,
    baselineRawSocketIo: raw,
    targetP99Ms: { oneNode: 50, twoNodes: 100 },
  };
}
