/**
 * The end of a run: its outcome from the state and how it ended, with the error event (when there is
 * an error) and the one `done` event, always last.
 */
import type { AgentStopReason } from "../events.ts";
import { type LoopRun, emit } from "./state.ts";
import type { Stop } from "./stop.ts";
import type { LoopOutcome } from "./types.ts";

/** How a run ended: the stop reason and what the outcome carries besides the state. */
export type Ending<T> = { stopReason: AgentStopReason } & Pick<
  LoopOutcome<T>,
  "value" | "answer" | "error" | "providerError"
>;

export function finish<T>(run: LoopRun, { stopReason, ...extra }: Ending<T>): LoopOutcome<T> {
  const s = run.state;
  s.stopReason = stopReason;
  const out: LoopOutcome<T> = {
    iterations: s.iterations,
    usage: { ...s.usage },
    costUsd: s.costUsd,
    notes: s.notes,
    stopReason,
    messages: s.messages,
    ...extra,
  };
  if (out.error) emit(run, { type: "error", message: out.error });
  emit(run, { type: "done", stopReason, iterations: s.iterations, notes: [...s.notes] });
  return out;
}

/**
 * A Stop thrown from a step: cancelled and stopped (a teammate's Stop, its message a note already)
 * carry no error, anything else its message (and a failed request's kind).
 */
export const stopped = (e: Stop): Ending<never> =>
  e.reason === "cancelled" || e.reason === "stopped"
    ? { stopReason: e.reason }
    : { stopReason: e.reason, error: e.message, ...(e.provider ? { providerError: e.provider } : {}) };
