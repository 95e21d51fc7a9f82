import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openMigratedDb } from "../../test/helpers/db.ts";
import type { Db } from "../db/client.ts";
import { createEventBus, type RoomEvent } from "./bus.ts";

const log = pino({ level: "silent" });
let db: Db;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ db, close } = await openMigratedDb());
});
afterAll(() => close());

describe("event bus", () => {
  it("numbers events per room, delivers them live and replays them from the database", async () => {
    const bus = createEventBus({ db, log });
    const live: RoomEvent[] = [];
    const off = bus.subscribe("review:a", (e) => live.push(e));
    await Promise.all([
      bus.publish("review:a", "status", { status: "running" }),
      bus.publish("review:b", "status", { status: "queued" }),
    ]);
    await bus.publish("review:a", "tool_call", { name: "read_file" });
    off();
    await bus.publish("review:a", "done", {});
    expect(live.map((e) => [e.seq, e.type])).toEqual([
      [1, "status"],
      [2, "tool_call"],
    ]);
    // A new bus (a restarted process) continues the numbering and replays everything.
    const again = createEventBus({ db, log });
    await again.publish("review:a", "note", { text: "after restart" });
    const history = await again.history("review:a");
    expect(history.map((e) => [e.seq, e.type])).toEqual([
      [1, "status"],
      [2, "tool_call"],
      [3, "done"],
      [4, "note"],
    ]);
    expect((await again.history("review:a", 2)).map((e) => e.seq)).toEqual([3, 4]);
  });

  it("streams every token delta live but stores consecutive deltas as one event", async () => {
    const bus = createEventBus({ db, log });
    const live: string[] = [];
    bus.subscribe("chat:t", (e) => live.push(`${e.type}:${(e.payload as { text?: string }).text ?? ""}`));
    for (const t of ["Hel", "lo ", "world"]) await bus.publish("chat:t", "token", { text: t, message: "m1" });
    await bus.publish("chat:t", "tool_call", { name: "grep" });
    await bus.publish("chat:t", "token", { text: "again", message: "m1" });
    expect(live).toEqual(["token:Hel", "token:lo ", "token:world", "tool_call:", "token:again"]);
    const stored = await bus.history("chat:t");
    expect(stored.map((e) => [e.seq, e.type, e.payload])).toEqual([
      [1, "token", { message: "m1", text: "Hello world" }],
      [2, "tool_call", { name: "grep" }],
      [3, "token", { message: "m1", text: "again" }],
    ]);
  });

  it("keeps deltas of different messages apart and deletes a room", async () => {
    const bus = createEventBus({ db, log });
    await bus.publish("run:x", "token", { text: "a", step: 1 });
    await bus.publish("run:x", "token", { text: "b", step: 2 });
    await bus.flush();
    expect((await bus.history("run:x")).map((e) => e.payload)).toEqual([
      { step: 1, text: "a" },
      { step: 2, text: "b" },
    ]);
    await bus.deleteRoom("run:x");
    expect(await bus.history("run:x")).toEqual([]);
    await bus.publish("run:x", "status", {});
    expect((await bus.history("run:x")).map((e) => e.seq)).toEqual([1]);
  });
});
