/**
 * Steering a running agent review over the room protocol, against the scripted model: a hint reaches
 * the next model request, a pause holds every request until resume, a stop ends with a partial report;
 * viewers and bad input are refused; a restart keeps a paused review paused.
 */
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openMigratedDb } from "../../test/helpers/db.ts";
import { createReviewRow } from "../../test/helpers/review-row.ts";
import { openRoomClient, type RoomClient } from "../../test/helpers/room-client.ts";
import {
  signUp,
  signUpInNewWorkspace,
  startTestServer,
  type TestServer,
  type TestUser,
} from "../../test/helpers/server.ts";
import { createEventBus } from "../events/bus.ts";
import type { JobQueue } from "../jobs/queue.ts";
import type { ScriptedServer } from "../llm/scripted/server.ts";
import { startServer as startScripted } from "../llm/test-support.ts";
import type { ProviderService } from "../providers/service.ts";
import { reviewRoom } from "../shared/rooms.ts";
import { reportText } from "./reviewer/test-support.ts";
import { createReviewService } from "./service.ts";
import { createSteering } from "./steering.ts";
import { createLocalSignals } from "../cluster/signals.ts";

let app: TestServer;
let llm: ScriptedServer;
let owner: TestUser;
let viewer: TestUser;
let projectUid: string;
let connectionUid: string;
const clients: RoomClient[] = [];

const REPORT = reportText([]);

beforeAll(async () => {
  llm = await startScripted([]);
  app = await startTestServer();
  owner = await signUp(app.url, { name: "Olga Owner" });
  viewer = await signUpInNewWorkspace(app, "Vic Viewer");
  await app.services.db.membership.create({
    data: { workspaceId: owner.workspaceId, userId: viewer.userId, role: "viewer" },
  });
  projectUid = (
    await owner.client.ok<{ projectUid: string }>("mutate", "projects.startDemo", { workspaceId: owner.workspaceId })
  ).projectUid;
  await app.services.queue.idle();
  connectionUid = crypto.randomUUID();
  await owner.client.ok("mutate", "providers.save", {
    workspaceId: owner.workspaceId,
    uid: connectionUid,
    name: "scripted",
    provider: "anthropic",
    baseUrl: llm.url,
    model: "claude-sonnet-5-5",
    apiKey: "sk-test",
  });
}, 180_000);
afterAll(async () => {
  for (const c of clients) c.close();
  await app?.stop();
  await llm?.close();
});

async function client(u: TestUser): Promise<RoomClient> {
  const c = await openRoomClient(app.url, u.client.cookie);
  clients.push(c);
  return c;
}

async function startReview(): Promise<string> {
  const r = await owner.client.ok<{ uid: string }>("mutate", "reviews.start", {
    projectUid,
    engine: "agent",
    connectionUid,
    budget: { maxIterations: 10 },
    settings: { verify: false },
  });
  return r.uid;
}

const status = async (uid: string) =>
  (await owner.client.ok<{ status: string }>("query", "reviews.get", { uid })).status;
const settle = (ms = 300) => new Promise((r) => setTimeout(r, ms));

describe("steering a running review", () => {
  it("pause holds every model request; a hint posted meanwhile reaches the first request after resume", async () => {
    llm.setScript([
      { match: "review it critically", text: REPORT },
      // Slow enough to pause while it is in flight.
      { match: "Review scope", toolCalls: [{ name: "list_dir", input: { path: "." } }], delayMs: 1000 },
      { match: "src", text: REPORT },
    ]);
    llm.reset();
    const uid = await startReview();
    const room = reviewRoom(uid);
    const a = await client(owner);
    await expect.poll(() => llm.requests.length, { timeout: 10_000 }).toBe(1);
    expect(await a.call("steer.pause", { room })).toEqual({ ok: true });
    // The request in flight finishes and its tool runs; the next one is not sent while paused.
    await settle(2500);
    expect(llm.requests).toHaveLength(1);
    expect(await status(uid)).toBe("running");
    expect(await owner.client.ok<{ steering: unknown }>("query", "reviews.get", { uid })).toMatchObject({
      steering: { paused: { by: { name: "Olga Owner" } }, stopRequested: null },
    });
    expect(await a.call("steer.hint", { room, text: "also check the auth middleware" })).toMatchObject({ ok: true });
    await settle();
    expect(llm.requests).toHaveLength(1);

    expect(await a.call("steer.resume", { room })).toEqual({ ok: true });
    await app.services.queue.idle();
    expect(await status(uid)).toBe("completed");
    expect(llm.requests[1]!.lastUserText).toContain(
      "A teammate (Olga Owner) watching this review adds a hint: also check the auth middleware",
    );
    // The hint was given once, not again on later turns.
    expect(llm.requests.slice(2).every((r) => !r.lastUserText.includes("auth middleware"))).toBe(true);
    const events = await app.services.events.history(room);
    expect(events.filter((e) => ["steering", "hint", "hint_delivered"].includes(e.type)).map((e) => e.type)).toEqual([
      "steering",
      "hint",
      "steering",
      "hint_delivered",
    ]);
    expect(events.find((e) => e.type === "hint")).toMatchObject({ payload: { author: { name: "Olga Owner" } } });
  }, 60_000);

  it("stop aborts the model request in flight: the review settles within 1 s, stopped by its author, with a partial report", async () => {
    // The stand-in model takes 8 s per request; its answer (a tool call) would come too late.
    llm.setScript([{ toolCalls: [{ name: "list_dir", input: { path: "." } }], delayMs: 8000 }]);
    llm.reset();
    const uid = await startReview();
    const room = reviewRoom(uid);
    const a = await client(owner);
    await expect.poll(() => llm.requests.length, { timeout: 10_000 }).toBe(1);
    const asked = performance.now();
    expect(await a.call("steer.stop", { room })).toEqual({ ok: true });
    await expect.poll(() => status(uid), { timeout: 5000, interval: 50 }).toBe("completed");
    const settleMs = performance.now() - asked;
    console.log(`stop settle: ${Math.round(settleMs)} ms`);
    expect(settleMs).toBeLessThan(1000);
    const done = await owner.client.ok<{
      status: string;
      findingsCount: number;
      report: { notes: string[]; engineLabel: string };
      steering: { stopRequested: { by: { name: string } } | null };
    }>("query", "reviews.get", { uid });
    expect(done.steering.stopRequested?.by.name).toBe("Olga Owner");
    expect(done.report.notes).toEqual(
      expect.arrayContaining([
        "Stopped by Olga Owner: the report covers what was explored until then.",
        expect.stringMatching(
          /^The agent was stopped after 1 of 10 iterations \(0 tool calls run\), before it reported\./,
        ),
      ]),
    );
    expect(done.report.engineLabel).toMatch(/\(stopped\)$/);
    // The demo project's static findings in scope make the partial report.
    expect(done.findingsCount).toBeGreaterThan(0);
    // One request, aborted: no second request, and the tool it would have asked for never ran.
    await settle(500);
    expect(llm.requests).toHaveLength(1);
    const history = await app.services.events.history(room);
    expect(history.some((e) => e.type === "tool_result")).toBe(false);
    expect(history.findLast((e) => e.type === "review_status")).toMatchObject({
      payload: {
        status: "completed",
        reason: "Stopped by Olga Owner: the report covers what was explored until then.",
      },
    });
    expect(history.find((e) => e.type === "done")).toMatchObject({ payload: { stopReason: "stopped" } });
    // Finished: nothing to steer any more.
    expect(await a.call("steer.hint", { room, text: "too late" })).toEqual({
      ok: false,
      code: "conflict",
      message: "This review is completed: there is nothing to steer any more.",
    });
  }, 60_000);

  it("a stop seen between turns ends the run too, without one more model request", async () => {
    llm.setScript([
      { match: "Review scope", toolCalls: [{ name: "list_dir", input: { path: "." } }], delayMs: 1000 },
      { text: "never asked", delayMs: 8000 },
    ]);
    llm.reset();
    const uid = await startReview();
    const review = await app.services.db.review.findUniqueOrThrow({ where: { uid } });
    // Paused during the first request, then a stop recorded straight in the table (its signal lost):
    // the paused hook reads it there.
    const a = await client(owner);
    await expect.poll(() => llm.requests.length, { timeout: 10_000 }).toBe(1);
    expect(await a.call("steer.pause", { room: reviewRoom(uid) })).toEqual({ ok: true });
    await app.services.db.reviewSteer.create({
      data: { uid: crypto.randomUUID(), reviewId: review.id, kind: "stop", authorId: owner.userId },
    });
    await app.services.queue.idle();
    expect(await status(uid)).toBe("completed");
    expect(llm.requests).toHaveLength(1);
    const history = await app.services.events.history(reviewRoom(uid));
    expect(history.find((e) => e.type === "done")).toMatchObject({ payload: { stopReason: "stopped" } });
  }, 60_000);

  it("viewers cannot steer; bad input and senseless actions are refused, and nothing is recorded", async () => {
    llm.setScript([{ text: REPORT, delayMs: 5000 }]);
    const uid = await startReview();
    const room = reviewRoom(uid);
    const a = await client(owner);
    await a.call("steer.pause", { room });
    const v = await client(viewer);
    const viewerSays = "You are a read-only viewer in this workspace; only a member or owner can make changes here.";
    for (const m of ["steer.pause", "steer.resume", "steer.stop"] as const)
      expect(await v.call(m, { room })).toEqual({ ok: false, code: "forbidden", message: viewerSays });
    expect(await v.call("steer.hint", { room, text: "psst" })).toEqual({
      ok: false,
      code: "forbidden",
      message: viewerSays,
    });
    expect(await a.call("steer.hint", { room, text: "   " })).toEqual({
      ok: false,
      code: "invalid",
      message: "The steer.hint message was not understood: text: a hint needs some text",
    });
    expect(await a.call("steer.hint", { room, text: "x".repeat(4001) })).toMatchObject({
      code: "invalid",
      message: expect.stringMatching(/text: a hint is at most 4,000 characters/),
    });
    expect(await a.call("steer.pause", { room })).toEqual({
      ok: false,
      code: "conflict",
      message: "Olga Owner already paused this review.",
    });
    const steers = await app.services.db.reviewSteer.count({ where: { review: { uid } } });
    expect(steers).toBe(1);
    const staticReview = await createReviewRow(app.services.db, owner.workspaceId, { status: "running" });
    expect(await a.call("steer.hint", { room: reviewRoom(staticReview.uid), text: "x" })).toEqual({
      ok: false,
      code: "invalid",
      message: "A static review has no agent to steer.",
    });
    await owner.client.ok("mutate", "reviews.cancel", { uid });
    await app.services.queue.idle();
    expect(await status(uid)).toBe("cancelled");
  }, 60_000);
});

describe("a restart", () => {
  it("keeps a paused running review paused and queued again — not failed; an unpaused one fails as before", async () => {
    const { db, close } = await openMigratedDb();
    try {
      const log = pino({ level: "silent" });
      const events = createEventBus({ db, log });
      const steering = createSteering({ db, events, log });
      const enqueued: unknown[] = [];
      const queue = {
        enqueue: async (_kind: string, job: unknown) => void enqueued.push(job),
      } as unknown as JobQueue;
      const reviews = createReviewService({
        db,
        queue,
        events,
        log,
        providers: {} as ProviderService,
        steering,
        signals: createLocalSignals(log),
      });
      const user = await db.user.create({ data: { id: "u1", name: "Ada", email: "ada@example.test" } });
      const ws = await db.workspace.create({ data: { name: "w" } });
      const paused = await createReviewRow(db, ws.id, { status: "running" });
      const plain = await createReviewRow(db, ws.id, { status: "running" });
      await db.reviewSteer.create({
        data: { uid: crypto.randomUUID(), reviewId: paused.id, kind: "pause", authorId: user.id },
      });
      await db.reviewSteer.create({
        data: {
          uid: crypto.randomUUID(),
          reviewId: paused.id,
          kind: "hint",
          authorId: user.id,
          text: "h",
          deliveredAt: new Date(),
        },
      });

      expect(await reviews.recoverInterrupted()).toEqual({ failed: 1, requeued: 1 });
      expect(await db.review.findUniqueOrThrow({ where: { id: paused.id } })).toMatchObject({
        status: "queued",
        statusReason: expect.stringMatching(/paused; it starts again from the beginning when resumed/),
      });
      expect(await steering.stateOf(paused.id)).toMatchObject({ paused: { by: { name: "Ada" } } });
      // Its hints go to the new conversation.
      expect(await db.reviewSteer.findFirst({ where: { reviewId: paused.id, kind: "hint" } })).toMatchObject({
        deliveredAt: null,
      });
      expect(enqueued).toEqual([{ reviewId: paused.id }]);
      expect(await db.review.findUniqueOrThrow({ where: { id: plain.id } })).toMatchObject({ status: "failed" });
    } finally {
      await close();
    }
  });
});
