import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openMigratedDb, type TestConfig } from "../../test/helpers/db.ts";
import { createDb, type Db } from "../db/client.ts";
import { kbRoom, projectRoom, reviewRoom, runRoom } from "../shared/rooms.ts";
import { fitFromStart } from "../shared/reply-bytes.ts";
import { createEventBus, type RoomEvent } from "./bus.ts";
import { HISTORY_CHUNK } from "./history.ts";

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

  it("history reads a long log in chunks: every event once, in order, types left out across chunks, stopped at a byte budget", async () => {
    const bus = createEventBus({ db, log });
    const room = reviewRoom(uid());
    const total = HISTORY_CHUNK * 2 + 50;
    for (let i = 1; i <= total; i++) {
      // Every tenth event is a status row, to be left out by prefix wherever it falls.
      await bus.publish(
        room,
        i % 10 === 0 ? running : { type: "finding_dismissed", payload: { fingerprint: `f${i}` } },
      );
    }
    const all = await bus.history(room);
    expect(all.map((e) => e.seq)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    const dismissals = await bus.history(room, 0, 5000, { omitTypes: ["review_"] });
    expect(dismissals).toHaveLength(total - total / 10);
    expect(dismissals.every((e) => e.type === "finding_dismissed")).toBe(true);
    // After a seq inside the first chunk, a limit inside a later one.
    const from = Math.floor(HISTORY_CHUNK / 2);
    const limit = HISTORY_CHUNK + 10;
    expect((await bus.history(room, from, limit)).map((e) => e.seq)).toEqual(
      Array.from({ length: limit }, (_, i) => i + from + 1),
    );
    // A 1 KB budget: reading stops just past it, so a reply cut to the budget loses nothing it read.
    const budgeted = await bus.history(room, 0, 5000, { maxBytes: 1024 });
    expect(budgeted.length).toBeLessThan(total);
    const { kept, cut } = fitFromStart(budgeted, 1024);
    expect(cut).toBe(true);
    expect(kept).toEqual(budgeted.slice(0, -1));
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
    // The first delta in a quiet room goes at once; the rest of the tick waits for its window: one
    // frame, and every delta's publish resolves with it.
    const sent = await Promise.all(["Hel", "lo ", "world"].map((t) => token(t)));
    expect(sent.map((e) => e.seq)).toEqual([1, 2, 2]);
    // Another event closes the open frame first; a change of phase starts a new frame.
    void token("a");
    void token("b", "critiquing");
    await bus.publish(room, { type: "tool_call", payload: { id: "c", name: "grep", input: {}, iteration: 1 } });
    await token("again");
    const seen = (events: RoomEvent<"review">[]) =>
      events.map((e) => [e.seq, e.type, e.type === "token" ? `${e.payload.phase}:${e.payload.text}` : ""]);
    const expected = [
      [1, "token", "exploring:Hel"],
      [2, "token", "exploring:lo world"],
      [3, "token", "exploring:a"],
      [4, "token", "critiquing:b"],
      [5, "tool_call", ""],
      [6, "token", "exploring:again"],
    ];
    expect(seen(live)).toEqual(expected);
    expect(seen(await bus.history(room))).toEqual(expected);
  });

  it("two token streams in one room (two answers, a review and an answer) each coalesce on their own", async () => {
    const bus = createEventBus({ db, log, coalesceMs: 40 });
    const room = projectRoom(uid());
    const [t, a1, a2] = [uid(), uid(), uid()];
    const delta = (answerId: string, text: string) =>
      bus.publish(room, { type: "ask.token", payload: { threadId: t, answerId, text } });
    // Interleaved deltas of two answers, 20 each: before, each delta closed the other's frame
    // (about 40 frames); now each answer's deltas of a window are one frame.
    const sent: Promise<unknown>[] = [];
    for (let i = 0; i < 20; i++) sent.push(delta(a1, `a${i} `), delta(a2, `b${i} `));
    await Promise.all(sent);
    const stored = (await bus.history(room)).filter((e) => e.type === "ask.token");
    const textOf = (answerId: string) =>
      stored
        .filter((e) => e.payload.answerId === answerId)
        .map((e) => e.payload.text)
        .join("");
    expect(textOf(a1)).toBe(Array.from({ length: 20 }, (_, i) => `a${i} `).join(""));
    expect(textOf(a2)).toBe(Array.from({ length: 20 }, (_, i) => `b${i} `).join(""));
    // The first delta of each goes at once, the rest of the tick waits in one frame per answer.
    expect(stored.length).toBeLessThanOrEqual(4);
  });

  it("the first delta after a quiet window is not held: it reaches a subscriber well within the window", async () => {
    // A long window, so the machine's load (the room's first write reads its last seq) cannot blur
    // "at once" with "after the window".
    const windowMs = 1000;
    const bus = createEventBus({ db, log, coalesceMs: windowMs });
    const room = reviewRoom(uid());
    const arrived: { text: string; ms: number }[] = [];
    const t0 = performance.now();
    bus.subscribe(
      room,
      (e) => e.type === "token" && arrived.push({ text: e.payload.text, ms: performance.now() - t0 }),
    );
    const first = bus.publish(room, { type: "token", payload: { text: "First", phase: "exploring" } });
    const rest = bus.publish(room, { type: "token", payload: { text: " words", phase: "exploring" } });
    await first;
    expect(arrived).toEqual([{ text: "First", ms: expect.any(Number) }]);
    expect(arrived[0]!.ms).toBeLessThan(windowMs / 2);
    await rest;
    // The one after it waited for the window.
    expect(arrived[1]).toEqual({ text: " words", ms: expect.any(Number) });
    expect(arrived[1]!.ms).toBeGreaterThanOrEqual(windowMs - 5);
    // Quiet for a whole window again: the next delta goes at once too.
    await new Promise((r) => setTimeout(r, windowMs + 10));
    const before = performance.now();
    await bus.publish(room, { type: "token", payload: { text: " later", phase: "exploring" } });
    expect(performance.now() - before).toBeLessThan(windowMs / 2);
    expect(arrived.map((a) => a.text).join("")).toBe("First words later");
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
    // Nothing lost, nothing reordered, and far fewer frames than deltas: a frame spans a window (the
    // first one goes alone, at once). How many deltas share a window depends on how fast this machine
    // ran the 5 ms sleeps; at most one frame per window does not.
    expect(frames.join("")).toBe(deltas.join(""));
    expect(frames.length).toBeLessThanOrEqual(Math.ceil(elapsed / windowMs) + 1);
    expect(frames.length).toBeLessThan(deltas.length / 2);
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
