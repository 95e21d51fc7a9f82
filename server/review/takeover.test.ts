/**
 * The take-over policy of a shared queue (service.ts `takeOver` / `abandoned`): what happens to a
 * review whose worker died mid-run, decided like the restart policy — an agent review fails with the
 * reason, a paused one is queued again still paused, a static one runs again — and what a review
 * given up after a second dead worker says. (The whole path with real processes: test/scale/nodes.test.ts.)
 */
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openMigratedDb } from "../../test/helpers/db.ts";
import { createReviewRow } from "../../test/helpers/review-row.ts";
import { createLocalSignals } from "../cluster/signals.ts";
import type { Db } from "../db/client.ts";
import { createEventBus } from "../events/bus.ts";
import type { JobQueue } from "../jobs/queue.ts";
import type { ProviderService } from "../providers/service.ts";
import { reviewRoom } from "../shared/rooms.ts";
import { createReviewService, STOPPED_REASONS } from "./service.ts";
import { createSteering } from "./steering.ts";

const log = pino({ level: "silent" });
let db: Db;
let close: () => Promise<void>;
let reviews: ReturnType<typeof createReviewService>;
let events: ReturnType<typeof createEventBus>;
let workspaceId: string;

beforeAll(async () => {
  ({ db, close } = await openMigratedDb());
  events = createEventBus({ db, log });
  const steering = createSteering({ db, events, log });
  const queue = { enqueue: async () => undefined } as unknown as JobQueue;
  const signals = createLocalSignals(log);
  reviews = createReviewService({ db, queue, events, log, providers: {} as ProviderService, steering, signals });
  workspaceId = (await db.workspace.create({ data: { name: "w" } })).id;
  await db.user.create({ data: { id: "u1", name: "Ada", email: "ada@example.test" } });
});
afterAll(() => close());

async function running(engine: "agent" | "static") {
  const r = await createReviewRow(db, workspaceId, { status: "running" });
  await db.review.update({ where: { id: r.id }, data: { engine } });
  return r;
}
const row = (id: string) => db.review.findUniqueOrThrow({ where: { id } });
const lastStatus = async (uid: string) => (await events.history(reviewRoom(uid))).at(-1);

describe("a review taken over from a worker that died", () => {
  it("an agent review fails with the reason a user can act on, and is not run again", async () => {
    const r = await running("agent");
    expect(await reviews.takeOver(r.id)).toBe(false);
    expect(await row(r.id)).toMatchObject({ status: "failed", statusReason: STOPPED_REASONS.worker });
    expect(await lastStatus(r.uid)).toMatchObject({
      type: "review_status",
      payload: { status: "failed", reason: STOPPED_REASONS.worker },
    });
  });

  it("a paused agent review is queued again, still paused, its hints to be given again", async () => {
    const r = await running("agent");
    await db.reviewSteer.create({ data: { uid: crypto.randomUUID(), reviewId: r.id, kind: "pause", authorId: "u1" } });
    await db.reviewSteer.create({
      data: {
        uid: crypto.randomUUID(),
        reviewId: r.id,
        kind: "hint",
        authorId: "u1",
        text: "h",
        deliveredAt: new Date(),
      },
    });
    expect(await reviews.takeOver(r.id)).toBe(true);
    expect(await row(r.id)).toMatchObject({ status: "queued", statusReason: STOPPED_REASONS.pausedWorker });
    expect((await db.reviewSteer.findFirstOrThrow({ where: { reviewId: r.id, kind: "hint" } })).deliveredAt).toBeNull();
  });

  it("a static review (no model, no budget) runs again", async () => {
    const r = await running("static");
    expect(await reviews.takeOver(r.id)).toBe(true);
    expect(await row(r.id)).toMatchObject({ status: "queued", statusReason: STOPPED_REASONS.staticWorker });
  });

  it("a review that ended meanwhile is left alone; a queued one just runs", async () => {
    const done = await createReviewRow(db, workspaceId, { status: "cancelled" });
    expect(await reviews.takeOver(done.id)).toBe(false);
    expect((await row(done.id)).status).toBe("cancelled");
    const queued = await createReviewRow(db, workspaceId, { status: "queued" });
    expect(await reviews.takeOver(queued.id)).toBe(true);
  });

  it("given up after a second dead worker: failed, saying so; a finished review keeps its status", async () => {
    const r = await running("agent");
    await reviews.abandoned(r.id);
    expect(await row(r.id)).toMatchObject({ status: "failed", statusReason: STOPPED_REASONS.abandoned });
    const completed = await createReviewRow(db, workspaceId, { status: "completed" });
    await reviews.abandoned(completed.id);
    expect((await row(completed.id)).status).toBe("completed");
  });
});
