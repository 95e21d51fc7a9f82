/**
 * Migration 20261201000000_room_event_types: review-room rows written before the typed protocol (the
 * review's status as `status`, the static engine's bare `done`, the job's report without notes) read
 * back as members of the review room's union.
 */
import pino from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openMigratedDb, testProvider } from "../../test/helpers/db.ts";
import type { Db } from "../db/client.ts";
import { migrationsFor } from "../db/migrate.ts";
import { reviewRoom } from "../shared/rooms.ts";
import { createEventBus } from "./bus.ts";

let db: Db;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ db, close } = await openMigratedDb());
});
afterAll(() => close());

it("rewrites the old review-room rows so history parses them; agent status rows keep their type", async () => {
  const room = reviewRoom(crypto.randomUUID());
  const stages = { proposed: 1, droppedUnlocatable: 0, repairedLocation: 0, droppedDuplicate: 0, droppedDismissed: 0 };
  const rows = [
    ["status", { status: "running" }],
    ["status", { type: "status", phase: "exploring", message: "started", iteration: 0 }],
    [
      "report",
      {
        overallScore: 80,
        findings: 1,
        stages: { ...stages, droppedUnverified: 0, droppedBelowConfidence: 0, droppedBelowSeverity: 0, kept: 1 },
      },
    ],
    ["status", { status: "completed" }],
    ["done", { status: "completed" }],
  ] as const;
  await db.roomEvent.createMany({
    data: rows.map(([type, payload], i) => ({ room, seq: i + 1, type, payload: JSON.stringify(payload) })),
  });
  const bus = createEventBus({ db, log: pino({ level: "silent" }) });
  // Before the rewrite, the old shapes are not members of the union.
  expect((await bus.history(room)).map((e) => e.seq)).toEqual([2]);

  const sql = migrationsFor(testProvider()).find((m) => m.name === "20261201000000_room_event_types")!.sql;
  const statements = sql
    .split(/;\s*\n/)
    .map((s) => s.replace(/^--.*$/gm, "").trim())
    .filter(Boolean);
  for (const statement of statements) await db.$executeRawUnsafe(statement);

  expect((await bus.history(room)).map((e) => [e.seq, e.type])).toEqual([
    [1, "review_status"],
    [2, "status"],
    [3, "report"],
    [4, "review_status"],
    [5, "done"],
  ]);
  const events = await bus.history(room);
  expect(events[2]).toMatchObject({ payload: { overallScore: 80, notes: [] } });
  expect(events[4]).toMatchObject({ payload: { stopReason: "end_turn", iterations: 0, notes: [] } });
});
