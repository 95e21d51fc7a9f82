import { describe, expect, it } from "vitest";
import type { Finding } from "./findings.ts";
import {
  MAX_GAP_MS,
  atReplayEnd,
  initReplay,
  nextIndexOf,
  parseAtParam,
  replayReducer,
  replaySeq,
  replayTimes,
  reportedFingerprints,
  shownEvents,
  type ReplayAction,
  type ReplayEvent,
  type ReplayState,
} from "./replay.ts";

const room = "review:0f8e3a52-6d1b-4c0e-9a57-2b9d3c4e5f61" as const;
const t0 = Date.parse("2025-01-01T10:00:00.000Z");

/** An event at `ms` after t0. */
function ev(seq: number, ms: number, body: Omit<ReplayEvent, "room" | "seq" | "at">): ReplayEvent {
  return { ...body, room, seq, at: new Date(t0 + ms).toISOString() } as ReplayEvent;
}
const status = (seq: number, ms: number, message: string) =>
  ev(seq, ms, { type: "status", payload: { phase: "exploring", message, iteration: 0 } });
const call = (seq: number, ms: number, name: string, input: Record<string, unknown>) =>
  ev(seq, ms, { type: "tool_call", payload: { id: `c${seq}`, name, input, iteration: 1 } });
const token = (seq: number, ms: number, text: string) =>
  ev(seq, ms, { type: "token", payload: { text, phase: "exploring" } });
const finding = (seq: number, ms: number, fingerprint: string) =>
  ev(seq, ms, {
    type: "finding",
    payload: {
      finding: {
        fingerprint,
        title: `finding ${fingerprint}`,
        severity: "high",
        confidence: 0.8,
        category: "security",
        file: "src/api.py",
        startLine: 3,
        endLine: 3,
        evidence: "x",
        explanation: "y",
        verification: "not_run",
        source: "agent",
      } satisfies Finding,
    },
  });

// A short review: 1 status, a tool call, tokens, a long wait for the model (60 s), a second call,
// two findings.
const LOG: ReplayEvent[] = [
  status(1, 0, "Exploring"),
  call(2, 200, "grep", { pattern: "execute" }),
  token(3, 400, "Let me "),
  token(4, 500, "look"),
  call(5, 60_500, "read_file", { path: "src/api.py", start_line: 10, end_line: 30 }),
  finding(6, 61_000, "fp-a"),
  token(7, 61_100, "…"),
  finding(8, 61_200, "fp-b"),
];

const run = (state: ReplayState, ...actions: ReplayAction[]) => actions.reduce(replayReducer, state);

describe("opening a replay", () => {
  it("opens at the end of the log, sorted by seq with each seq once, paused at 1×", () => {
    const s = initReplay([LOG[3]!, ...LOG, LOG[0]!]);
    expect(s.events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(atReplayEnd(s)).toBe(true);
    expect(replaySeq(s)).toBe(8);
    expect(s.playing).toBe(false);
    expect(s.speed).toBe(1);
  });

  it("?at=<seq> opens at that moment: every event up to that seq, none after", () => {
    const s = initReplay(LOG, 4);
    expect(shownEvents(s).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(replaySeq(s)).toBe(4);
    // A seq between two events (gaps after a coalesced token) shows the ones before it.
    expect(replaySeq(initReplay([LOG[0]!, LOG[4]!], 3))).toBe(1);
    // Before the first event: nothing shown yet.
    expect(shownEvents(initReplay(LOG, 0))).toEqual([]);
    // Past the end: the whole log.
    expect(atReplayEnd(initReplay(LOG, 999))).toBe(true);
  });

  it("caps long waits when it lays the events on the play timeline", () => {
    const s = initReplay(LOG);
    // 0, 200, 400, 500, then the 60 s wait plays as MAX_GAP_MS, then the real small gaps.
    expect(s.times).toEqual([
      0,
      200,
      400,
      500,
      500 + MAX_GAP_MS,
      1000 + MAX_GAP_MS,
      1100 + MAX_GAP_MS,
      1200 + MAX_GAP_MS,
    ]);
    expect(replayTimes(s).total).toBe(1200 + MAX_GAP_MS);
  });

  it("an event out of time order or with an unreadable time does not run the clock backwards", () => {
    const odd = [status(1, 1000, "a"), { ...status(2, 0, "b"), at: "not a date" }, status(3, 500, "c")];
    const s = initReplay(odd);
    expect(s.times).toEqual([0, 0, 0]);
  });
});

describe("playing", () => {
  it("shows the next events as play time passes, scaled by the speed, and stops at the end", () => {
    let s = run(initReplay(LOG, 0), { type: "play" });
    expect(s.playing).toBe(true);
    s = run(s, { type: "tick", ms: 1 });
    expect(replaySeq(s)).toBe(1); // the first event shows at once
    s = run(s, { type: "tick", ms: 250 });
    expect(replaySeq(s)).toBe(2);
    s = run(s, { type: "speed", speed: 10 }, { type: "tick", ms: 30 }); // 300 ms of play time: 551
    expect(replaySeq(s)).toBe(4);
    // The 60 s wait takes MAX_GAP_MS of play time (the next event at 2000, 145 ms away at 10×).
    expect(s.times[4]).toBe(500 + MAX_GAP_MS);
    s = run(s, { type: "tick", ms: 144 });
    expect(replaySeq(s)).toBe(4);
    s = run(s, { type: "tick", ms: 1 });
    expect(replaySeq(s)).toBe(5);
    s = run(s, { type: "tick", ms: 10_000 });
    expect(atReplayEnd(s)).toBe(true);
    expect(s.playing).toBe(false);
  });

  it("play at the end starts again from the beginning; toggle pauses and plays", () => {
    let s = run(initReplay(LOG), { type: "play" });
    expect(s.pos).toBe(0);
    expect(s.playing).toBe(true);
    s = run(s, { type: "tick", ms: 450 }, { type: "toggle" });
    expect(s.playing).toBe(false);
    const paused = replaySeq(s);
    s = run(s, { type: "tick", ms: 10_000 });
    expect(replaySeq(s)).toBe(paused); // a paused replay does not move
    s = run(s, { type: "toggle" });
    expect(s.playing).toBe(true);
  });

  it("an empty log cannot play", () => {
    expect(run(initReplay([]), { type: "play" }).playing).toBe(false);
  });
});

describe("scrubbing", () => {
  it("the slider seeks to a position (clamped), keeping play on, and resumes from there", () => {
    let s = run(initReplay(LOG, 0), { type: "play" }, { type: "seek", pos: 5 });
    expect(replaySeq(s)).toBe(5);
    expect(s.playing).toBe(true);
    s = run(s, { type: "tick", ms: 499 });
    expect(replaySeq(s)).toBe(5);
    s = run(s, { type: "tick", ms: 1 });
    expect(replaySeq(s)).toBe(6);
    expect(run(s, { type: "seek", pos: -3 }).pos).toBe(0);
    expect(run(s, { type: "seek", pos: 99 }).pos).toBe(8);
  });

  it("steps one event at a time and pauses", () => {
    let s = run(initReplay(LOG, 4), { type: "play" }, { type: "step", by: 1 });
    expect(replaySeq(s)).toBe(5);
    expect(s.playing).toBe(false);
    s = run(s, { type: "step", by: -1 }, { type: "step", by: -1 });
    expect(replaySeq(s)).toBe(3);
    expect(run(initReplay(LOG, 0), { type: "step", by: -1 }).pos).toBe(0);
  });

  it("jumps to the next tool call and the next finding, and stays put when there is none", () => {
    let s = run(initReplay(LOG, 0), { type: "next", kind: "tool_call" });
    expect(replaySeq(s)).toBe(2);
    expect(shownEvents(s).at(-1)!.type).toBe("tool_call");
    s = run(s, { type: "next", kind: "tool_call" });
    expect(replaySeq(s)).toBe(5);
    expect(nextIndexOf(s, "tool_call")).toBe(-1);
    expect(run(s, { type: "next", kind: "tool_call" })).toBe(s);
    s = run(s, { type: "next", kind: "finding" });
    expect(replaySeq(s)).toBe(6);
    s = run(s, { type: "next", kind: "finding" });
    expect(replaySeq(s)).toBe(8);
  });

  it("seekSeq goes to a seq's moment", () => {
    expect(replaySeq(run(initReplay(LOG), { type: "seekSeq", seq: 3 }))).toBe(3);
  });
});

describe("the log growing while replaying", () => {
  it("at the end, the end follows new events; elsewhere the moment stays", () => {
    const more = [ev(9, 70_000, { type: "thread_count", payload: { fingerprint: "fp-a", count: 1 } })];
    const atEnd = run(initReplay(LOG), { type: "load", events: more });
    expect(replaySeq(atEnd)).toBe(9);
    const mid = run(initReplay(LOG, 4), { type: "load", events: more });
    expect(replaySeq(mid)).toBe(4);
    expect(mid.events).toHaveLength(9);
  });

  it("earlier events loaded later (a further page) keep the moment's seq", () => {
    const s = run(initReplay(LOG.slice(4), 6), { type: "load", events: LOG.slice(0, 4) });
    expect(replaySeq(s)).toBe(6);
    expect(s.pos).toBe(6);
  });

  it("the same events again change nothing", () => {
    const s = initReplay(LOG, 3);
    expect(run(s, { type: "load", events: LOG })).toBe(s);
  });
});

it("the findings of a moment are those the agent had reported by then", () => {
  expect([...reportedFingerprints(shownEvents(initReplay(LOG, 5)))]).toEqual([]);
  expect([...reportedFingerprints(shownEvents(initReplay(LOG, 7)))]).toEqual(["fp-a"]);
  expect([...reportedFingerprints(shownEvents(initReplay(LOG)))]).toEqual(["fp-a", "fp-b"]);
});

it("?at= accepts a positive whole number only", () => {
  expect(parseAtParam("42")).toBe(42);
  for (const bad of [null, undefined, "", "0", "-3", "4.5", "1e3", "abc", "12abc", " 7", "9".repeat(20)])
    expect(parseAtParam(bad)).toBeUndefined();
});
