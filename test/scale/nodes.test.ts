/**
 * Argus as several processes, for real: two web nodes (A, B) and a worker, three processes on three
 * ports, one PostgreSQL database and one Redis (a private redis-server the test can restart).
 *
 * - A review started through node A waits while no worker runs, then runs on the worker; its events
 *   reach a socket connected to node B in order, with no seq gap, exactly as the log has them.
 * - Presence: a user in the room on A shows on B and the other way round.
 * - Ask Argus: a question asked on A is answered on the worker and streamed to B; within a daily
 *   budget, the worker keeps the day's running figures in Redis (server/ask/spend-shared.ts).
 * - Pause, resume and cancel from either web node reach the review on the worker.
 * - SIGKILL of the worker mid-review: the review keeps "running" until a worker is back, then the new
 *   worker takes the job over and fails the review with a reason a user understands; no seq gap.
 * - Redis restarted mid-review: the review finishes, and B's socket gets every event; meanwhile the
 *   web nodes answer (health says degraded, reads work) and a review asked for then runs once Redis is back.
 *
 * Skipped unless DATABASE_URL names PostgreSQL and `redis-server` is installed (npm run test:scale).
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestConfig, testProvider, type TestConfig } from "../helpers/db.ts";
import { sayWhySkipped } from "../helpers/redis.ts";
import { openRoomClient, type RoomClient } from "../helpers/room-client.ts";
import { inviteAndSignUp, signUp, type TestUser } from "../helpers/server.ts";
import { modelFinding, reportText } from "../../server/review/reviewer/test-support.ts";
import { startScriptedServer, type ScriptedServer } from "../../server/llm/scripted/server.ts";
import type { RuleInput } from "../../server/llm/scripted/script.ts";
import { STOPPED_REASONS } from "../../server/review/service.ts";
import { RoomFeed } from "../../server/shared/room-delivery.ts";
import type { RoomEvent } from "../../server/shared/room-events.ts";
import type { PresentMember } from "../../server/shared/room-presence.ts";
import { projectRoom, reviewRoom, type RoomName } from "../../server/shared/rooms.ts";
import {
  hasRedisServer,
  startNode,
  startPrivateRedis,
  type NodeProcess,
  type PrivateRedis,
} from "./support/cluster.ts";

const skip =
  testProvider() !== "postgres"
    ? "DATABASE_URL is not a postgres:// URL: several nodes need one PostgreSQL database."
    : !hasRedisServer()
      ? "redis-server is not installed (apt-get install redis-server): the test runs a Redis of its own."
      : undefined;
sayWhySkipped("test/scale/nodes.test.ts", skip);

const LEASE_SECONDS = 5;
let t: TestConfig;
let redis: PrivateRedis;
let llm: ScriptedServer;
let env: Record<string, string>;
let webA: NodeProcess;
let webB: NodeProcess;
let worker: NodeProcess | undefined;
const nodes: NodeProcess[] = [];
let owner: TestUser;
let bea: TestUser;
let ownerOnA: RoomClient;
let beaOnB: RoomClient;
let connectionUid: string;
let projectUid: string;
/** The first test's review (its room is the presence test's). */
let firstReview: RoomName<"review">;

async function node(role: "web" | "worker"): Promise<NodeProcess> {
  const n = await startNode(role, env);
  nodes.push(n);
  return n;
}

const report = reportText([
  modelFinding({
    title: "SQL injection in find_items",
    file: "src/api.py",
    start_line: 19,
    evidence: `cursor.execute(f"SELECT id, name, stock FROM items WHERE name LIKE '%{name}%'")`,
    severity: "critical",
    category: "security",
  }),
]);

const REVIEW_SCRIPT: RuleInput[] = [
  { match: "Review scope", toolCalls: [{ name: "list_dir", input: { path: "." } }], delayMs: 400 },
  { match: "/./s", toolCalls: [{ name: "read_file", input: { path: "src/api.py" } }], delayMs: 400, times: 6 },
  { text: report, delayMs: 400 },
];
const ANSWER = "Passwords are hashed with MD5 in `hashPassword` at src/server.js:31-33, which is weak.";
const ASK_SCRIPT: RuleInput[] = [
  { match: "createHash", text: ANSWER },
  { match: "/where are passwords hashed/i", toolCalls: [{ name: "read_file", input: { path: "src/server.js" } }] },
];

beforeAll(async () => {
  if (skip) return;
  // The model takes its time (400 ms a turn) over six tool turns, so a review runs long enough to be
  // cut off halfway; then it reports.
  llm = await startScriptedServer({ script: { rules: REVIEW_SCRIPT } });
  redis = await startPrivateRedis();
  t = await createTestConfig({ AUTH_SECRET: "scale-test-secret-0123456789abcdef" });
  env = {
    ...t.env,
    REDIS_URL: redis.url,
    REDIS_PREFIX: `argus-nodes-${Date.now().toString(36)}`,
    JOB_LEASE_SECONDS: String(LEASE_SECONDS),
    LOG_LEVEL: "warn",
  };
  // Both web nodes start together: one applies the migrations, the other waits for it.
  [webA, webB] = await Promise.all([node("web"), node("web")]);
  worker = await node("worker");
  owner = await signUp(webA.url, { name: "Olga Owner" });
  bea = await inviteAndSignUp(owner, "member", "Bea Member");
  connectionUid = crypto.randomUUID();
  await owner.client.ok("mutate", "providers.save", {
    workspaceId: owner.workspaceId,
    uid: connectionUid,
    name: "scripted",
    provider: "anthropic",
    baseUrl: llm.url,
    model: "claude-sonnet-4-5",
    apiKey: "sk-test",
  });
  // The demo import and its static review run on the worker (startDemo waits for the import).
  ({ projectUid } = await owner.client.ok<{ projectUid: string }>("mutate", "projects.startDemo", {
    workspaceId: owner.workspaceId,
  }));
  ownerOnA = await openRoomClient(webA.url, owner.client.cookie);
  // Bea signed up through A; her session works on every node (one database, one AUTH_SECRET).
  beaOnB = await openRoomClient(webB.url, bea.client.cookie);
}, 240_000);

afterAll(async () => {
  ownerOnA?.close();
  beaOnB?.close();
  for (const n of nodes) await n.kill("SIGTERM").catch(() => undefined);
  await redis?.stop();
  await llm?.close();
  await t?.cleanup();
});

/** A room watched the way the browser does: live events, the log after a gap or a join, each once. */
async function watch(client: RoomClient, room: RoomName) {
  const fresh: RoomEvent[] = [];
  const live: number[] = [];
  const feed = new RoomFeed<RoomEvent>((events) => fresh.push(...events), {
    fetchAfter: (afterSeq) =>
      void client.call("history", { room, afterSeq }).then((r) => {
        if (r.ok) feed.page(r.events);
        feed.caughtUp();
      }),
  });
  client.socket.on("event", (e) => {
    if (e.room !== room) return;
    live.push(e.seq);
    feed.live(e);
  });
  feed.startJoin();
  const joined = await client.call("join", { room, afterSeq: 0 });
  if (!joined.ok) throw new Error(joined.error);
  feed.page(joined.events);
  feed.caughtUp();
  return { fresh, live, feed };
}

async function startAgentReview(): Promise<{ uid: string; room: RoomName<"review"> }> {
  llm.setScript(REVIEW_SCRIPT);
  llm.reset(); // each review gets the whole script (its rules' uses start again)
  const review = await owner.client.ok<{ uid: string; status: string }>("mutate", "reviews.start", {
    projectUid,
    engine: "agent",
    connectionUid,
    budget: { maxIterations: 12 },
    settings: { verify: false },
  });
  expect(review.status).toBe("queued");
  return { uid: review.uid, room: reviewRoom(review.uid) };
}

const statusOf = async (uid: string) =>
  await owner.client.ok<{ status: string; statusReason: string | null }>("query", "reviews.get", { uid });

/** The review's whole log as stored (read through node A). */
const logOf = async (uid: string) =>
  (await owner.client.ok<RoomEvent[]>("query", "reviews.events", { uid })).map((e) => `${e.seq}:${e.type}`);

const seqsAreWhole = (seqs: number[]) => seqs.every((s, i) => s === i + 1);

describe.skipIf(!!skip)("two web nodes and a worker on one PostgreSQL and one Redis", () => {
  it("a review started on A waits for a worker, runs on it, and its events reach B in order with no gap", async () => {
    await worker!.kill("SIGTERM"); // no worker for now
    worker = undefined;
    const pushes: { unread: number }[] = [];
    ownerOnA.socket.on("notification", (p) => pushes.push(p));
    const { uid, room } = await startAgentReview();
    firstReview = room;
    const onB = await watch(beaOnB, room);
    await new Promise((r) => setTimeout(r, 2000));
    // Web nodes never run jobs: it waits, and A's health counts it.
    expect((await statusOf(uid)).status).toBe("queued");
    const health = await (await fetch(`${webA.url}/api/health`)).json();
    expect(health).toMatchObject({ status: "ok", role: "web", db: "ok", redis: "ok", queue: { kind: "bullmq" } });
    expect(health.queue.waiting).toBeGreaterThanOrEqual(1);

    worker = await node("worker");
    // Three processes on three ports.
    expect(new Set([webA, webB, worker].map((n) => new URL(n.url).port)).size).toBe(3);
    expect(new Set([webA, webB, worker].map((n) => n.child.pid)).size).toBe(3);
    const workerHealth = await (await fetch(`${worker.url}/api/health`)).json();
    expect(workerHealth).toMatchObject({ status: "ok", role: "worker", redis: "ok" });
    await expect.poll(async () => (await statusOf(uid)).status, { timeout: 60_000, interval: 300 }).toBe("completed");
    await expect.poll(() => onB.fresh.at(-1)?.type, { timeout: 10_000 }).toBe("done");

    const log = await logOf(uid);
    expect(onB.fresh.map((e) => `${e.seq}:${e.type}`)).toEqual(log);
    expect(seqsAreWhole(onB.fresh.map((e) => e.seq))).toBe(true);
    // It ran: tool calls went out from the worker, and B saw them live, not only in the log.
    expect(log.filter((e) => e.endsWith(":tool_call")).length).toBeGreaterThanOrEqual(6);
    expect(onB.live.length).toBeGreaterThan(10);
    expect(onB.live).toEqual([...onB.live].sort((a, b) => a - b));
    // The worker told the review's starter it finished: the push reached Olga's socket on A.
    await expect.poll(() => pushes.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
  });

  it("presence: a user in the room on A shows on B, and one on B shows on A", async () => {
    const room = firstReview;
    beaOnB.socket.emit("leave", { room }); // (watched in the test before)
    const heard = (c: RoomClient) => {
      let latest: { members: PresentMember[]; version: number } = { members: [], version: 0 };
      c.socket.on("presence", (p) => {
        if (p.room === room && (p.version ?? 0) >= latest.version)
          latest = { members: p.members, version: p.version ?? 0 };
      });
      return () => latest.members.map((m) => m.name).sort();
    };
    const onA = heard(ownerOnA);
    const onB = heard(beaOnB);
    expect(await ownerOnA.call("join", { room, afterSeq: 0 })).toMatchObject({ ok: true });
    expect(await beaOnB.call("join", { room, afterSeq: 0 })).toMatchObject({ ok: true });
    await expect.poll(onB, { timeout: 10_000 }).toEqual(["Bea Member", "Olga Owner"]);
    await expect.poll(onA, { timeout: 10_000 }).toEqual(["Bea Member", "Olga Owner"]);
    // What Olga looks at on A reaches Bea on B.
    await ownerOnA.call("presence.update", { room, focus: { kind: "file", path: "src/api.py", line: 19 } });
    beaOnB.socket.emit("leave", { room });
    await expect.poll(onA, { timeout: 10_000 }).toEqual(["Olga Owner"]);
  });

  it("Ask Argus: a question asked on A is answered on the worker, streamed to a watcher on B", async () => {
    llm.setScript(ASK_SCRIPT);
    const room = projectRoom(projectUid);
    const onB = await watch(beaOnB, room);
    const r = await owner.client.ok<{ answer: { id: string; status: string } }>("mutate", "ask.ask", {
      projectUid,
      question: "Where are passwords hashed?",
    });
    expect(r.answer.status).toBe("queued");
    const state = () =>
      onB.fresh
        .filter((e) => e.type === "ask.message")
        .map((e) => (e.payload as { message: { id: string; status: string; body: string } }).message)
        .filter((m) => m.id === r.answer.id)
        .at(-1);
    await expect.poll(() => state()?.status, { timeout: 30_000 }).toBe("done");
    expect(state()?.body).toBe(ANSWER);
    expect(onB.fresh.some((e) => e.type === "ask.tool_call")).toBe(true);
    expect(seqsAreWhole(onB.fresh.map((e) => e.seq))).toBe(true);
  });

  it("Ask Argus within a daily budget: the worker holds and charges in Redis; the day's figures there match the database's", async () => {
    llm.setScript(ASK_SCRIPT);
    const ws = owner.workspaceId;
    const room = projectRoom(projectUid);
    const onB = await watch(beaOnB, room);
    await owner.client.ok("mutate", "ask.setBudget", { workspaceId: ws, maxTokens: 1_000_000, maxCostUsd: null });
    const raw = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    raw.on("error", () => undefined);
    try {
      const r = await owner.client.ok<{ answer: { id: string } }>("mutate", "ask.ask", {
        projectUid,
        question: "Where are passwords hashed?",
      });
      const status = () =>
        onB.fresh
          .filter((e) => e.type === "ask.message")
          .map((e) => (e.payload as { message: { id: string; status: string } }).message)
          .filter((m) => m.id === r.answer.id)
          .at(-1)?.status;
      await expect.poll(status, { timeout: 30_000 }).toBe("done");
      const key = `${env.REDIS_PREFIX}:ask-budget:${ws}:${new Date().toISOString().slice(0, 10)}`;
      const spent = async () =>
        (await owner.client.ok<{ spent: { tokens: number } }>("query", "ask.budget", { workspaceId: ws })).spent.tokens;
      const figures = async () => {
        const h = await raw.hgetall(key);
        return {
          tokens: Number(h.tokens ?? -1),
          held: Object.keys(h).filter((f) => f.startsWith("h:")).length,
          maxTokens: h.maxTokens,
        };
      };
      // Charges settle in the background: Redis agrees with the database once they have, nothing held.
      await expect.poll(async () => (await figures()).tokens === (await spent()), { timeout: 10_000 }).toBe(true);
      expect(await figures()).toMatchObject({ held: 0, maxTokens: "1000000" });
      expect((await figures()).tokens).toBeGreaterThan(0);
      // An owner's change reaches the figures the workers hold against.
      await owner.client.ok("mutate", "ask.setBudget", { workspaceId: ws, maxTokens: 2_000_000, maxCostUsd: null });
      expect((await figures()).maxTokens).toBe("2000000");
    } finally {
      raw.disconnect();
      await owner.client.ok("mutate", "ask.setBudget", { workspaceId: ws, maxTokens: null, maxCostUsd: null });
    }
  });

  it("chat on A: a mention of Bea reaches her inbox on B; '@argus …' is answered on the worker, streamed to B", async () => {
    llm.setScript(ASK_SCRIPT);
    const room = projectRoom(projectUid);
    const onB = await watch(beaOnB, room);
    // The earlier test's answers are in the room's log too: only the one asked in the chat counts.
    const earlier = new Set(
      onB.fresh
        .filter((e) => e.type === "ask.message")
        .map((e) => (e.payload as { message: { id: string } }).message.id),
    );
    const pushes: { notification: { kind: string; text: string }; unread: number }[] = [];
    beaOnB.socket.on("notification", (p) => pushes.push(p));
    expect(await ownerOnA.call("join", { room, afterSeq: 0 })).toMatchObject({ ok: true });

    const sent = await ownerOnA.call("chat.send", { room, body: `@[Bea Member](mention:${bea.userId}) have a look` });
    expect(sent).toMatchObject({ ok: true });
    await expect.poll(() => pushes.map((p) => p.notification.kind), { timeout: 10_000 }).toEqual(["mention"]);
    expect(pushes[0]!.notification.text).toContain("Olga Owner");
    expect(pushes[0]!.unread).toBeGreaterThanOrEqual(1);
    await expect.poll(() => onB.fresh.some((e) => e.type === "chat_message"), { timeout: 10_000 }).toBe(true);

    expect(await ownerOnA.call("chat.send", { room, body: "@argus where are passwords hashed?" })).toMatchObject({
      ok: true,
    });
    const answers = () =>
      onB.fresh
        .filter((e) => e.type === "ask.message")
        .map((e) => (e.payload as { message: { id: string; kind: string; status: string; body: string } }).message)
        .filter((m) => m.kind === "answer" && !earlier.has(m.id));
    await expect.poll(() => answers().at(-1)?.status, { timeout: 30_000 }).toBe("done");
    expect(answers().at(-1)?.body).toBe(ANSWER);
    expect(seqsAreWhole(onB.fresh.map((e) => e.seq))).toBe(true);
    ownerOnA.socket.emit("leave", { room });
    beaOnB.socket.emit("leave", { room });
  });

  it("pause from B holds the worker's review, resume from A lets it go on, cancel from B stops it on the worker", async () => {
    const { uid, room } = await startAgentReview();
    const onB = await watch(beaOnB, room);
    const toolCalls = () => onB.fresh.filter((e) => e.type === "tool_call").length;
    await expect.poll(toolCalls, { timeout: 60_000 }).toBeGreaterThanOrEqual(1);
    expect(await beaOnB.call("steer.pause", { room })).toEqual({ ok: true });
    await new Promise((r) => setTimeout(r, 1200)); // a turn in flight may still finish
    const held = toolCalls();
    await new Promise((r) => setTimeout(r, 2000));
    expect(toolCalls()).toBe(held); // paused on the worker: no model turn
    expect(await ownerOnA.call("join", { room, afterSeq: 0 })).toMatchObject({ ok: true });
    expect(await ownerOnA.call("steer.resume", { room })).toEqual({ ok: true });
    await expect.poll(toolCalls, { timeout: 10_000 }).toBeGreaterThan(held);

    await bea.client.ok("mutate", "reviews.cancel", { uid });
    await expect.poll(async () => (await statusOf(uid)).status, { timeout: 10_000 }).toBe("cancelled");
    const requests = llm.requests.length;
    await new Promise((r) => setTimeout(r, 2000));
    // The worker stopped the model conversation (at most the request in flight went out).
    expect(llm.requests.length - requests).toBeLessThanOrEqual(1);
    expect((await statusOf(uid)).statusReason).toBe("Cancelled by a user.");
    const log = await logOf(uid);
    expect(log.filter((e) => e.endsWith(":review_status"))).toHaveLength(3); // queued, running, cancelled
    await expect.poll(() => onB.fresh.map((e) => `${e.seq}:${e.type}`), { timeout: 10_000 }).toEqual(log);
  });

  it("SIGKILL of the worker mid-review: the review waits, then the next worker fails it with the reason; no seq gap", async () => {
    const { uid, room } = await startAgentReview();
    const onB = await watch(beaOnB, room);
    await expect.poll(() => onB.fresh.some((e) => e.type === "tool_call"), { timeout: 60_000 }).toBe(true);
    await worker!.kill("SIGKILL");
    worker = undefined;
    // Nobody can tell yet whether the worker will come back: still running.
    await new Promise((r) => setTimeout(r, 1000));
    expect((await statusOf(uid)).status).toBe("running");

    worker = await node("worker");
    await expect
      .poll(async () => (await statusOf(uid)).status, { timeout: 8 * LEASE_SECONDS * 1000, interval: 300 })
      .toBe("failed");
    expect((await statusOf(uid)).statusReason).toBe(STOPPED_REASONS.worker);
    await expect.poll(() => onB.fresh.at(-1)?.type, { timeout: 10_000 }).toBe("review_status");
    expect(onB.fresh.at(-1)?.payload).toMatchObject({ status: "failed", reason: STOPPED_REASONS.worker });
    const log = await logOf(uid);
    expect(onB.fresh.map((e) => `${e.seq}:${e.type}`)).toEqual(log);
    expect(seqsAreWhole(onB.fresh.map((e) => e.seq))).toBe(true);
    // The job was not run a second time (an agent review's conversation cannot be resumed).
    expect(log.filter((e) => e.endsWith(":review_status"))).toHaveLength(3); // queued, running, failed
  });

  it("Redis restarted mid-review: the review finishes and B's socket gets every event", async () => {
    const { uid, room } = await startAgentReview();
    const onB = await watch(beaOnB, room);
    await expect.poll(() => onB.fresh.some((e) => e.type === "tool_call"), { timeout: 60_000 }).toBe(true);
    const restarted = redis.restart(800);
    // While Redis is away, web nodes answer: degraded, not down.
    await new Promise((r) => setTimeout(r, 300));
    const res = await fetch(`${webB.url}/api/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "degraded", db: "ok", redis: "unreachable" });
    // Web keeps serving: reads answer, and a review asked for now is accepted at once (its job goes
    // out when Redis answers).
    expect((await statusOf(uid)).status).toBe("running");
    const askedAt = Date.now();
    const meanwhile = await owner.client.ok<{ uid: string; status: string }>("mutate", "reviews.start", {
      projectUid,
      engine: "static",
    });
    expect(meanwhile.status).toBe("queued");
    expect(Date.now() - askedAt).toBeLessThan(5000);
    await restarted;

    await expect.poll(async () => (await statusOf(uid)).status, { timeout: 60_000, interval: 300 }).toBe("completed");
    await expect.poll(() => onB.fresh.at(-1)?.type, { timeout: 15_000 }).toBe("done");
    const log = await logOf(uid);
    expect(onB.fresh.map((e) => `${e.seq}:${e.type}`)).toEqual(log);
    expect(seqsAreWhole(onB.fresh.map((e) => e.seq))).toBe(true);
    expect(log.filter((e) => e.endsWith(":review_status"))).toHaveLength(3); // queued, running, completed
    expect((await (await fetch(`${webB.url}/api/health`)).json()).status).toBe("ok");
    // The review asked for while Redis was away ran on the worker once it was back.
    await expect
      .poll(async () => (await statusOf(meanwhile.uid)).status, { timeout: 60_000, interval: 300 })
      .toBe("completed");
  });
});
