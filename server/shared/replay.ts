/**
 * Replaying a finished review from its persisted room log, as a pure reducer: the browser's scrubber
 * (play / pause, speed, slider, "next tool call", "next finding", arrow-key steps) dispatches actions,
 * and the moment shown is the first `pos` events of the log. Everything on the page that depends on
 * the moment (the activity stream, the findings found so far, the team's votes then, the file the
 * agent was reading) is derived from those events, so a moment is fully named by one seq (`?at=`).
 *
 * Playback follows the events' own timestamps, scaled by the speed, except that a pause longer than
 * MAX_GAP_MS (the model thinking, a queue wait) plays as MAX_GAP_MS: a replay shows work, not waiting.
 */
import type { RoomEvent } from "./room-events.ts";

export type ReplayEvent = RoomEvent<"review">;

export const REPLAY_SPEEDS = [1, 2, 5, 10] as const;
export type ReplaySpeed = (typeof REPLAY_SPEEDS)[number];

/** The longest pause between two events a replay plays out (at 1×). */
export const MAX_GAP_MS = 1500;

/** The event kinds the scrubber can jump to. */
export type ReplayJump = "tool_call" | "finding";

export interface ReplayState {
  /** The log in seq order, each seq once. */
  events: readonly ReplayEvent[];
  /** Play time of each event in ms from the first (gaps capped at MAX_GAP_MS). */
  times: readonly number[];
  /** How many events the moment shows: 0 … events.length. */
  pos: number;
  /** Play time now (ms); the next event shows once the clock reaches its time. */
  clock: number;
  playing: boolean;
  speed: ReplaySpeed;
}

export type ReplayAction =
  /** The log as now loaded (more pages, or events that arrived since): merged by seq. */
  | { type: "load"; events: readonly ReplayEvent[] }
  | { type: "play" }
  | { type: "pause" }
  | { type: "toggle" }
  | { type: "speed"; speed: ReplaySpeed }
  /** Show the first `pos` events (the slider). */
  | { type: "seek"; pos: number }
  /** Show every event up to and including `seq` (a `?at=` link). */
  | { type: "seekSeq"; seq: number }
  | { type: "step"; by: number }
  | { type: "next"; kind: ReplayJump }
  /** `ms` of wall time passed while playing. */
  | { type: "tick"; ms: number };

function sortUnique(events: readonly ReplayEvent[]): ReplayEvent[] {
  const bySeq = new Map<number, ReplayEvent>();
  for (const e of events) bySeq.set(e.seq, e);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

function playTimes(events: readonly ReplayEvent[]): number[] {
  const times: number[] = [];
  let prevAt = NaN;
  for (const e of events) {
    const at = Date.parse(e.at);
    const gap = Number.isFinite(at) && Number.isFinite(prevAt) ? Math.max(0, at - prevAt) : 0;
    times.push(times.length === 0 ? 0 : times[times.length - 1]! + Math.min(gap, MAX_GAP_MS));
    if (Number.isFinite(at)) prevAt = at;
  }
  return times;
}

/** How many events have a seq of at most `seq`. */
function countUpTo(events: readonly ReplayEvent[], seq: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (events[mid]!.seq <= seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The clock of a moment: the time of its last event (just before the first one for an empty moment). */
const clockAt = (times: readonly number[], pos: number) => (pos === 0 ? -1 : times[pos - 1]!);

const clamp = (n: number, max: number) => Math.max(0, Math.min(max, Math.trunc(n) || 0));

/** A replay of `events`, at `atSeq` (every event up to it) or, without one, at the end. */
export function initReplay(events: readonly ReplayEvent[], atSeq?: number): ReplayState {
  const sorted = sortUnique(events);
  const times = playTimes(sorted);
  const pos = atSeq === undefined ? sorted.length : countUpTo(sorted, atSeq);
  return { events: sorted, times, pos, clock: clockAt(times, pos), playing: false, speed: 1 };
}

function moveTo(state: ReplayState, pos: number, playing = state.playing): ReplayState {
  const p = clamp(pos, state.events.length);
  return { ...state, pos: p, clock: clockAt(state.times, p), playing: playing && p < state.events.length };
}

/** The index of the first event of `kind` the moment does not show yet, or -1. */
export function nextIndexOf(state: ReplayState, kind: ReplayJump): number {
  for (let i = state.pos; i < state.events.length; i++) if (state.events[i]!.type === kind) return i;
  return -1;
}

export function replayReducer(state: ReplayState, action: ReplayAction): ReplayState {
  switch (action.type) {
    case "load": {
      const atEnd = state.pos === state.events.length;
      const seq = replaySeq(state);
      const events = sortUnique([...state.events, ...action.events]);
      if (events.length === state.events.length) return state;
      const times = playTimes(events);
      // At the end and not playing: the end moves with the log (new chat, votes). Else the moment stays.
      const pos = atEnd && !state.playing ? events.length : countUpTo(events, seq);
      return { ...state, events, times, pos, clock: state.playing ? state.clock : clockAt(times, pos) };
    }
    case "play":
      if (state.events.length === 0) return state;
      // Play at the end starts over.
      if (state.pos === state.events.length) return { ...moveTo(state, 0, false), playing: true };
      return { ...state, playing: true };
    case "pause":
      return state.playing ? { ...state, playing: false } : state;
    case "toggle":
      return replayReducer(state, { type: state.playing ? "pause" : "play" });
    case "speed":
      return { ...state, speed: action.speed };
    case "seek":
      return moveTo(state, action.pos);
    case "seekSeq":
      return moveTo(state, countUpTo(state.events, action.seq));
    case "step":
      return moveTo(state, state.pos + action.by, false);
    case "next": {
      const i = nextIndexOf(state, action.kind);
      return i < 0 ? state : moveTo(state, i + 1);
    }
    case "tick": {
      if (!state.playing || action.ms <= 0) return state;
      const clock = state.clock + action.ms * state.speed;
      let pos = state.pos;
      while (pos < state.events.length && state.times[pos]! <= clock) pos++;
      if (pos === state.events.length) return { ...state, pos, clock: clockAt(state.times, pos), playing: false };
      return { ...state, pos, clock };
    }
    default: {
      const unknown: never = action;
      void unknown;
      return state;
    }
  }
}

/** The seq of the moment: its last event's (0 before the first). */
export function replaySeq(state: ReplayState): number {
  return state.pos === 0 ? 0 : state.events[state.pos - 1]!.seq;
}

export const atReplayEnd = (state: ReplayState) => state.pos === state.events.length;

/** The events the moment shows. */
export const shownEvents = (state: ReplayState): readonly ReplayEvent[] => state.events.slice(0, state.pos);

/** Play time of the moment and of the whole replay, in ms. */
export function replayTimes(state: ReplayState): { now: number; total: number } {
  const total = state.times.length ? state.times[state.times.length - 1]! : 0;
  return { now: Math.max(0, Math.min(total, state.clock)), total };
}

/** The fingerprints of the findings the agent had reported by the end of `events`. */
export function reportedFingerprints(events: readonly ReplayEvent[]): Set<string> {
  const out = new Set<string>();
  for (const e of events) if (e.type === "finding") out.add(e.payload.finding.fingerprint);
  return out;
}

/** `?at=` as a seq: a positive whole number, else undefined (the replay then opens at the end). */
export function parseAtParam(value: string | null | undefined): number | undefined {
  if (!value || !/^\d{1,12}$/.test(value)) return undefined;
  const n = Number(value);
  return n > 0 ? n : undefined;
}
