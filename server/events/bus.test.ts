import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openMigratedDb } from "../../test/helpers/db.ts";
import type { Db } from "../db/client.ts";
import { kbRoom, reviewRoom, runRoom } from "../shared/rooms.ts";
import { createEventBus, type RoomEvent } from "./bus.ts";

const log = pino({ level: "silent" });
let db: Db;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ db, close } = await openMigratedDb());
});
afterAll(() => close());

const uid = () => crypto.randomUUID();
const running = { type: "review_status", payload: { status: "running" } } as const;

describe("event bus", () => {
  it("numbers events per room, delivers them live and replays them from the database", async () => {
    const bus = createEventBus({ db, log });
    const a = reviewRoom(uid());
    const b = reviewRoom(uid());
    const live: RoomEvent[] = [];
    const off = bus.subscribe(a, (e) => live.push(e));
    await Promise.all([
      bus.publish(a, running),
      bus.publish(b, { type: "review_status", payload: { status: "queued" } }),
    ]);
    await bus.publish(a, { type: "tool_call", payload: { id: "c1", name: "read_file", input: {}, iteration: 1 } });
    off();
    await bus.publish(a, { type: "done", payload: { stopReason: "end_turn", iterations: 1, notes: [] } });
    expect(live.map((e) => [e.seq, e.type])).toEqual([
      [1, "review_status"],
      [2, "tool_call"],
    ]);
    // A new bus (a restarted process) continues the numbering and replays everything.
    const again = createEventBus({ db, log });
    await again.publish(a, { type: "finding_dismissed", payload: { fingerprint: "fp" } });
    const history = await again.history(a);
    expect(history.map((e) => [e.seq, e.type])).toEqual([
      [1, "review_status"],
      [2, "tool_call"],
      [3, "done"],
      [4, "finding_dismissed"],
    ]);
    expect((await again.history(a, 2)).map((e) => e.seq)).toEqual([3, 4]);
  });

  it("refuses an event that is not a member of the room's union, and names what is wrong", async () => {
    const bus = createEventBus({ db, log });
    const room = reviewRoom(uid());
    // A pipeline event in a review room, a review event with a wrong field, a name that is no room.
    await expect(bus.publish(room, { type: "step_start", payload: { name: "x", depth: 0 } } as never)).rejects.toThrow(
      /Not an event of a review room: type/,
    );
    await expect(
      bus.publish(room, { type: "review_status", payload: { status: "exploded" } } as never),
    ).rejects.toThrow(/payload\.status/);
    await expect(bus.publish("chat:nope" as never, running as never)).rejects.toThrow(/Not a room name/);
    expect(await bus.history(room)).toEqual([]);
  });

  it("history parses what it reads: a row no schema describes is left out", async () => {
    const bus = createEventBus({ db, log });
    const room = kbRoom(uid());
    await db.roomEvent.create({ data: { room, seq: 1, type: "kb.exploded", payload: "{}" } });
    await db.roomEvent.create({ data: { room, seq: 2, type: "kb.failed", payload: "not json" } });
    await bus.publish(room, { type: "kb.failed", payload: { message: "no text" } });
    await bus.publish(room, { type: "kb.indexed", payload: { documents: 1, chunks: 2, ms: 3 } });
    expect((await bus.history(room)).map((e) => [e.seq, e.type, e.payload])).toEqual([
      [3, "kb.failed", { message: "no text" }],
      [4, "kb.indexed", { documents: 1, chunks: 2, ms: 3 }],
    ]);
  });

  it("streams every token delta live but stores consecutive deltas as one event", async () => {
    const bus = createEventBus({ db, log });
    const room = reviewRoom(uid());
    const live: string[] = [];
    bus.subscribe(room, (e) => live.push(`${e.type}:${e.type === "token" ? e.payload.text : ""}`));
    for (const t of ["Hel", "lo ", "world"])
      await bus.publish(room, { type: "token", payload: { text: t, phase: "exploring" } });
    await bus.publish(room, { type: "tool_call", payload: { id: "c", name: "grep", input: {}, iteration: 1 } });
    await bus.publish(room, { type: "token", payload: { text: "again", phase: "exploring" } });
    expect(live).toEqual(["token:Hel", "token:lo ", "token:world", "tool_call:", "token:again"]);
    const stored = await bus.history(room);
    expect(stored.map((e) => [e.seq, e.type, e.type === "token" ? e.payload.text : ""])).toEqual([
      [1, "token", "Hello world"],
      [2, "tool_call", ""],
      [3, "token", "again"],
    ]);
  });

  it("keeps deltas of different steps apart and deletes a room", async () => {
    const bus = createEventBus({ db, log });
    const room = runRoom(uid());
    await bus.publish(room, { type: "token", payload: { text: "a", step: "one", is_final: false } });
    await bus.publish(room, { type: "token", payload: { text: "b", step: "two", is_final: false } });
    await bus.flush();
    expect((await bus.history(room)).map((e) => e.payload)).toEqual([
      { step: "one", text: "a", is_final: false },
      { step: "two", text: "b", is_final: false },
    ]);
    await bus.deleteRoom(room);
    expect(await bus.history(room)).toEqual([]);
    await bus.publish(room, { type: "error", payload: { message: "x" } });
    expect((await bus.history(room)).map((e) => e.seq)).toEqual([1]);
  });
});
