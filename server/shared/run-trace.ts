/**
 * A pipeline run's live trace from its room's events (server/shared/room-events.ts, kind `run`):
 * one entry per step start — its depth, when it started and ended (the events' own times), the
 * output summary, the tokens it streamed, the model tokens it used and the sources it retrieved — then
 * the final answer or the error, and the run's token total. Pure, so the run page folds the log it has (live or read back) and tests can check it.
 */
import type { RoomEvent } from "./room-events.ts";

export interface TraceSource {
  id: number;
  title: string;
  content: string;
}

export interface TraceStep {
  /** The seq of its step_start: unique in the run, the key of the row. */
  seq: number;
  name: string;
  depth: number;
  startedAt: string;
  endedAt: string | null;
  output: string | null;
  /** Streamed text, in order. */
  tokens: string;
  /** How many token events arrived (each a coalesced batch). */
  tokenEvents: number;
  /** Model tokens the step used (its step_end says), null when it made no model request. */
  usage: TokenUsage | null;
  sources: TraceSource[];
}

export interface TokenUsage {
  input: number;
  output: number;
}

export interface RunTrace {
  steps: TraceStep[];
  /** The steps' model tokens summed; null until a step reports any. */
  usage: TokenUsage | null;
  answer: string | null;
  finished: boolean;
  error: string | null;
  /** How many steps have ended. */
  ended: number;
}

export const emptyTrace = (): RunTrace => ({
  steps: [],
  usage: null,
  answer: null,
  finished: false,
  error: null,
  ended: 0,
});

/** The step an event belongs to: the latest open one with that name, else the latest one. */
function stepFor(trace: RunTrace, name?: string): TraceStep | undefined {
  for (let i = trace.steps.length - 1; i >= 0; i--) {
    const s = trace.steps[i]!;
    if (name === undefined || (s.name === name && s.endedAt === null)) return s;
  }
  return trace.steps[trace.steps.length - 1];
}

/**
 * Folds events (in seq order) into a trace; returns a new trace, the input is not changed. Folding
 * more events onto the last result (`from`) gives what folding them all at once gives, so a long
 * live log is folded only by what arrived since (only the steps they touch are copied).
 */
export function foldTrace(events: readonly RoomEvent<"run">[], from: RunTrace = emptyTrace()): RunTrace {
  const trace: RunTrace = { ...from, steps: from.steps.slice() };
  const copied = new Set<number>();
  const own = (s: TraceStep | undefined): TraceStep | undefined => {
    if (!s || copied.has(s.seq)) return s;
    const i = trace.steps.lastIndexOf(s);
    const copy = { ...s };
    trace.steps[i] = copy;
    copied.add(copy.seq);
    return copy;
  };
  for (const e of events) {
    switch (e.type) {
      case "step_start":
        trace.steps.push({
          seq: e.seq,
          name: e.payload.name,
          depth: e.payload.depth,
          startedAt: e.at,
          endedAt: null,
          output: null,
          tokens: "",
          tokenEvents: 0,
          usage: null,
          sources: [],
        });
        copied.add(e.seq);
        break;
      case "step_end": {
        const found = stepFor(trace, e.payload.name);
        if (found && found.endedAt === null) {
          const s = own(found)!;
          s.endedAt = e.at;
          s.output = e.payload.output;
          trace.ended++;
          const t = e.payload.tokens;
          if (t) {
            s.usage = { input: t.input, output: t.output };
            trace.usage = {
              input: (trace.usage?.input ?? 0) + t.input,
              output: (trace.usage?.output ?? 0) + t.output,
            };
          }
        }
        break;
      }
      case "token": {
        const s = own(stepFor(trace, e.payload.step) ?? stepFor(trace));
        if (s) {
          s.tokens += e.payload.text;
          s.tokenEvents++;
        }
        break;
      }
      case "sources": {
        const s = own(stepFor(trace));
        if (s) s.sources = e.payload.data;
        break;
      }
      case "final":
        trace.finished = true;
        trace.answer = e.payload.data.answer;
        break;
      case "error":
        trace.finished = true;
        trace.error = e.payload.message;
        break;
      default:
        break; // chat and reactions: the chat panel's
    }
  }
  return trace;
}

/** Milliseconds between two event times, or null while the step runs. */
export function stepMs(step: Pick<TraceStep, "startedAt" | "endedAt">): number | null {
  if (!step.endedAt) return null;
  return Math.max(0, Date.parse(step.endedAt) - Date.parse(step.startedAt));
}
