/**
 * The review job's failure path, against a real database and event bus: what a failed review tells
 * its viewers (status reason, room events) and what it leaves in the log; and who hears of a review's
 * end in their inbox (its starter, nobody else).
 */
import { mkdir } from "node:fs/promises";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openMigratedDb, type TestConfig } from "../../test/helpers/db.ts";
import { captureLog } from "../../test/helpers/log.ts";
import { buildSymbolIndex } from "../codebase/symbols/index.ts";
import type { Db } from "../db/client.ts";
import { invalid } from "../errors.ts";
import { createEventBus } from "../events/bus.ts";
import type { ProviderService } from "../providers/service.ts";
import type { IndexCache } from "../retrieval/store/index.ts";
import { snapshotDirs } from "../snapshots/storage.ts";
import { createReviewJob } from "./job.ts";
import { reviewRoom } from "../shared/rooms.ts";
import { createNotifications } from "../notifications/service.ts";
import { createSteering } from "./steering.ts";

let db: Db;
let t: TestConfig;
let close: () => Promise<void>;
let ids: { workspaceId: string; projectId: string; snapshotId: string };

beforeAll(async () => {
  ({ db, t, close } = await openMigratedDb());
  const workspace = await db.workspace.create({ data: { name: "w" } });
  const project = await db.project.create({
    data: { uid: crypto.randomUUID(), workspaceId: workspace.id, name: "p", status: "ready" },
  });
  const snapshot = await db.snapshot.create({
    data: { uid: crypto.randomUUID(), projectId: project.id, sourceKind: "files", sourceLabel: "x", status: "ready" },
  });
  // An empty but real snapshot: the job gets as far as asking for the model.
  const dirs = snapshotDirs(t.config.dataDir, project.id, snapshot.id);
  await mkdir(dirs.src, { recursive: true });
  await mkdir(dirs.index, { recursive: true });
  await buildSymbolIndex({ root: dirs.src, files: [], indexPath: dirs.symbols, rules: true, mainThread: true });
  ids = { workspaceId: workspace.id, projectId: project.id, snapshotId: snapshot.id };
});
afterAll(() => close());

/** Runs one agent review whose model lookup fails with `failure`. */
function failingReview(failure: Error, createdById?: string) {
  return runReview({ engine: "agent", failure, createdById });
}

/** Runs one review to its end: an agent review fails at the model lookup, a static one completes. */
async function runReview(opts: { engine: "agent" | "static"; failure?: Error; createdById?: string }) {
  const captured = captureLog();
  const failure = opts.failure ?? invalid("no model in this test");
  const review = await db.review.create({
    data: {
      uid: crypto.randomUUID(),
      ...ids,
      createdById: opts.createdById ?? null,
      engine: opts.engine,
      status: "queued",
      scope: JSON.stringify({ kind: "project" }),
      budget: "{}",
      settings: "{}",
      promptContent: "Review the code.",
    },
  });
  const events = createEventBus({ db, log: pino({ level: "silent" }) });
  const providers = {
    resolveForJob: async () => {
      throw failure;
    },
  } as unknown as ProviderService;
  const run = createReviewJob({
    db,
    config: t.config,
    events,
    log: captured.log,
    providers,
    running: new Map(),
    searchIndexes: {} as IndexCache,
    steering: createSteering({ db, events, log: captured.log }),
    notify: createNotifications({ db, log: captured.log }).notify,
  });
  await run({ reviewId: review.id });
  await events.flush();
  return {
    row: await db.review.findUniqueOrThrow({ where: { id: review.id } }),
    events: await events.history(reviewRoom(review.uid)),
    log: captured,
  };
}

describe("a review that fails", () => {
  it("unexpectedly: viewers get a sentence and a reference, the log gets the path and the stack", async () => {
    const err = new Error("EACCES: permission denied, open '/root/secret/x'");
    err.stack = `${err.message}\n    at loadKey (/root/secret/keys.ts:3:9)`;
    const { row, events, log } = await failingReview(err);

    expect(row.status).toBe("failed");
    const reference = /reference: ([0-9a-f]{8})\.$/.exec(row.statusReason ?? "")?.[1];
    expect(row.statusReason).toMatch(/^Something went wrong while running the review\. /);
    expect(reference).toBeDefined();

    const room = JSON.stringify(events);
    expect(events.filter((e) => e.type === "error").map((e) => e.payload)).toEqual([{ message: row.statusReason }]);
    expect(events.at(-1)).toMatchObject({
      type: "review_status",
      payload: { status: "failed", reason: row.statusReason },
    });
    for (const leak of ["/root/secret", "EACCES", "loadKey"]) {
      expect(row.statusReason).not.toContain(leak);
      expect(room).not.toContain(leak);
    }

    const logged = log.lines().find((l) => l.reference === reference);
    expect(logged).toMatchObject({ level: 50, review: row.uid, err: { message: err.message } });
    expect((logged!.err as { stack: string }).stack).toContain("at loadKey (/root/secret/keys.ts:3:9)");
  });

  it("for a reason written for users: that message is what viewers see", async () => {
    const message = "No API key is configured for Anthropic. Add a model provider in Settings → Model providers.";
    const { row, events, log } = await failingReview(invalid(message));
    expect(row).toMatchObject({ status: "failed", statusReason: message });
    expect(events.filter((e) => e.type === "error").map((e) => e.payload)).toEqual([{ message }]);
    expect(log.lines().some((l) => l.level === 50)).toBe(false);
  });
});

describe("who hears that a review ended", () => {
  async function person(name: string, workspaceId = ids.workspaceId) {
    const user = await db.user.create({
      data: { id: crypto.randomUUID().replaceAll("-", ""), name, email: `${crypto.randomUUID()}@example.test` },
    });
    await db.membership.create({ data: { workspaceId, userId: user.id, role: "member" } });
    return user.id;
  }
  const inbox = (userId: string) =>
    db.notification.findMany({ where: { userId }, select: { kind: true, text: true, link: true, actorId: true } });

  it("a failed review: its starter gets review_failed linking to the moment it failed; a teammate gets nothing", async () => {
    const starter = await person("Sam Starter");
    const teammate = await person("Tia Teammate");
    const { row, events } = await failingReview(invalid("No API key is configured for Anthropic."), starter);
    const failedAt = events.find((e) => e.type === "review_status" && e.payload.status === "failed")!.seq;
    expect(await inbox(starter)).toEqual([
      {
        kind: "review_failed",
        text: "Your review of p failed: No API key is configured for Anthropic.",
        link: `/reviews/${row.uid}?at=${failedAt}`,
        actorId: null,
      },
    ]);
    expect(await inbox(teammate)).toEqual([]);
  });

  it("a completed review: its starter gets review_finished with the count of findings", async () => {
    const starter = await person("Fay Finisher");
    const { row, events } = await runReview({ engine: "static", createdById: starter });
    expect(row.status).toBe("completed");
    const doneAt = events.find((e) => e.type === "review_status" && e.payload.status === "completed")!.seq;
    expect(await inbox(starter)).toEqual([
      {
        kind: "review_finished",
        text: `Your review of p finished: ${row.findingsCount} findings.`,
        link: `/reviews/${row.uid}?at=${doneAt}`,
        actorId: null,
      },
    ]);
  });

  it("a starter who has left the workspace, or a review started from the command line, tells nobody", async () => {
    const gone = await person("Gus Gone");
    await db.membership.deleteMany({ where: { userId: gone } });
    await failingReview(invalid("No API key."), gone);
    expect(await inbox(gone)).toEqual([]);
    const before = await db.notification.count();
    await failingReview(invalid("No API key."));
    expect(await db.notification.count()).toBe(before);
  });
});
