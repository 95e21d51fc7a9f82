import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openMigratedDb, type TestConfig } from "../../test/helpers/db.ts";
import { createDb, type Db } from "../db/client.ts";
import { kbRoom, reviewRoom, runRoom } from "../shared/rooms.ts";
import { createEventBus, type RoomEvent } from "./bus.ts";

const log = pino({ level: "silent" });
let db: Db;
let t: TestConfig;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ db, t, close } = await openMigratedDb());
});
afterAll(() => close());

const uid = () => crypto.randomUUID();
const running = { type: "review_status", payload: { status: "running" } } as const;

describe("event bus", () => {
  it("two processes publishing into one room at once: every seq unique, none skipped, each one's order kept", async () => {
    // Two buses on two database clients — two Argus processes sharing one database.
    const otherDb = await createDb(t.config.db);
    try {
      const room = reviewRoom(uid());
      const buses = [createEventBus({ db, log }), createEventBus({ db: otherDb, log })];
      const seen = buses.map((bus) => {
        const got: RoomEvent[] = [];
        bus.subscribe(room, (e) => got.push(e));
        return got;
      });
      const N = 40;
      const results = await Promise.all(
        buses.map((bus, b) =>
          Promise.all(
            Array.from({ length: N }, (_, i) =>
              bus.publish(room, { type: "finding_dismissed", payload: { fingerprint: `bus${b}-${i}` } }),
            ),
          ),
        ),
      );
      const history = await buses[0]!.history(room);
      expect(history.map((e) => e.seq)).toEqual(Array.from({ length: 2 * N }, (_, i) => i + 1));
      for (const [b, published] of results.entries()) {
        const fps = (events: RoomEvent[]) =>
          events
            .map((e) => (e.type === "finding_dismissed" ? e.payload.fingerprint : ""))
            .filter((f) => f.startsWith(`bus${b}-`));
        const inOrder = Array.from({ length: N }, (_, i) => `bus${b}-${i}`);
        // Stored in publish order, delivered live in that order, with the seqs publish returned.
        expect(fps(history)).toEqual(inOrder);
        expect(fps(seen[b]!)).toEqual(inOrder);
        expect(seen[b]!.map((e) => e.seq)).toEqual(published.map((e) => e.seq));
        expect(published.map((e) => e.seq)).toEqual([...published.map((e) => e.seq)].sort((x, y) => x - y));
      }
    } finally {
      await otherDb.$disconnect();
    }
  });

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
    await bus.publish(room, { type: "kb.failed", payload: { message: "no text" } });
    // Rows written behind this bus's back (as another process would): its next seq is taken, so it
    // retries with the next free one instead of losing the event.
    await db.roomEvent.create({ data: { room, seq: 2, type: "kb.exploded", payload: "{}" } });
    await db.roomEvent.create({ data: { room, seq: 3, type: "kb.failed", payload: "not json" } });
    await bus.publish(room, { type: "kb.indexed", payload: { documents: 1, chunks: 2, ms: 3 } });
    expect((await bus.history(room)).map((e) => [e.seq, e.type, e.payload])).toEqual([
      [1, "kb.failed", { message: "no text" }],
      [4, "kb.indexed", { documents: 1, chunks: 2, ms: 3 }],
    ]);
  });

  it("coalesces token deltas into one frame per window: the same frames are stored and broadcast", async () => {
    const bus = createEventBus({ db, log, coalesceMs: 30 });
    const room = reviewRoom(uid());
    const live: RoomEvent<"review">[] = [];
    bus.subscribe(room, (e) => live.push(e));
    const token = (text: string, phase: "exploring" | "critiquing" = "exploring") =>
      bus.publish(room, { type: "token", payload: { text, phase } });
    // Deltas of one tick: one frame; every delta's publish resolves with it.
    const sent = await Promise.all(["Hel", "lo ", "world"].map((t) => token(t)));
    expect(new Set(sent.map((e) => e.seq))).toEqual(new Set([1]));
    // Another event closes the open frame first; a change of phase starts a new frame.
    void token("a");
    void token("b", "critiquing");
    await bus.publish(room, { type: "tool_call", payload: { id: "c", name: "grep", input: {}, iteration: 1 } });
    await token("again");
    const seen = (events: RoomEvent<"review">[]) =>
      events.map((e) => [e.seq, e.type, e.type === "token" ? `${e.payload.phase}:${e.payload.text}` : ""]);
    const expected = [
      [1, "token", "exploring:Hello world"],
      [2, "token", "exploring:a"],
      [3, "token", "critiquing:b"],
      [4, "tool_call", ""],
      [5, "token", "exploring:again"],
    ];
    expect(seen(live)).toEqual(expected);
    expect(seen(await bus.history(room))).toEqual(expected);
  });

  it("a steady stream of deltas goes out as about one frame per window, not one per delta", async () => {
    const windowMs = 40;
    const bus = createEventBus({ db, log, coalesceMs: windowMs });
    const room = reviewRoom(uid());
    const frames: string[] = [];
    bus.subscribe(room, (e) => e.type === "token" && frames.push(e.payload.text));
    const started = Date.now();
    const deltas = Array.from({ length: 60 }, (_, i) => `${i},`);
    const pending: Promise<unknown>[] = [];
    for (const d of deltas) {
      pending.push(bus.publish(room, { type: "token", payload: { text: d, phase: "exploring" } }));
      await new Promise((r) => setTimeout(r, 5));
    }
    await Promise.all(pending);
    const elapsed = Date.now() - started;
    // Nothing lost, nothing reordered, and far fewer frames than deltas: a frame spans a window.
    expect(frames.join("")).toBe(deltas.join(""));
    expect(frames.length).toBeLessThanOrEqual(Math.ceil(elapsed / windowMs) + 1);
    expect(frames.length).toBeLessThan(deltas.length / 3);
    expect((await bus.history(room)).length).toBe(frames.length);
  });

  it("while a room's write is slow, a frame whose window ended keeps taking deltas: few large frames, no backlog", async () => {
    // Each stored row takes 100 ms (a busy disk); deltas come every 5 ms through a 20 ms window. Queued
    // behind the slow writes, a frame per window would pile up ~five frames per write, each delaying
    // the next; held open while a write is in flight, the stream keeps up with one frame per write.
    const writeMs = 100;
    const slowDb = new Proxy(db, {
      get(target, prop, receiver) {
        if (prop !== "roomEvent") return Reflect.get(target, prop, receiver) as unknown;
        return new Proxy(target.roomEvent, {
          get(events, name, r) {
            if (name !== "create") return Reflect.get(events, name, r) as unknown;
            return async (args: Parameters<Db["roomEvent"]["create"]>[0]) => {
              await new Promise((resolve) => setTimeout(resolve, writeMs));
              return events.create(args);
            };
          },
        });
      },
    });
    const bus = createEventBus({ db: slowDb, log, coalesceMs: 20 });
    const room = reviewRoom(uid());
    const frames: { text: string; at: number }[] = [];
    bus.subscribe(room, (e) => e.type === "token" && frames.push({ text: e.payload.text, at: Date.now() }));
    const deltas = Array.from({ length: 100 }, (_, i) => `${i},`);
    const started = Date.now();
    const pending: Promise<unknown>[] = [];
    for (const d of deltas) {
      pending.push(bus.publish(room, { type: "token", payload: { text: d, phase: "exploring" } }));
      await new Promise((r) => setTimeout(r, 5));
    }
    const lastPublished = Date.now();
    await Promise.all(pending);
    expect(frames.map((f) => f.text).join("")).toBe(deltas.join(""));
    expect(frames.length).toBeLessThanOrEqual(Math.ceil((lastPublished - started) / writeMs) + 2);
    // The last delta goes out within its window plus about two writes, not after a queue of frames.
    expect(frames.at(-1)!.at - lastPublished).toBeLessThan(3 * writeMs + 100);
    expect((await bus.history(room)).length).toBe(frames.length);
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
