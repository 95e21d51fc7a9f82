/**
 * How a run ends from inside any step: a Stop is thrown on cancellation and on a failed request, and
 * runLoop turns it into the outcome. Steps that can carry on without a model request (a skipped
 * critique, a chat answer kept as it is) catch the budget Stop themselves.
 */
import type { LlmErrorKind } from "../../llm/index.ts";
import type { AgentStopReason } from "../events.ts";

/** What the LLM layer said of a failed request (its kind and HTTP status), for callers that advise on it. */
export interface ProviderFailure {
  kind: LlmErrorKind;
  status?: number;
}

export class Stop extends Error {
  constructor(
    readonly reason: AgentStopReason,
    message: string,
    /** Set when a model request failed: the LLM layer's classification of it. */
    readonly provider?: ProviderFailure,
  ) {
    super(message);
  }
}

/**
 * The abort reason that ends a run at once as *stopped*, not cancelled: a teammate's Stop aborts the
 * model request in flight and any running tool (no further request, no tool after it), and the
 * caller keeps what the run found so far. `message` says who stopped it and becomes a note.
 */
export class StopNow extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StopNow";
  }
}

export const isStopNow = (reason: unknown): reason is StopNow => reason instanceof StopNow;

/** How an aborted signal ends the run: stopped when its reason is a StopNow, otherwise cancelled. */
export const cancelled = (signal?: AbortSignal) =>
  isStopNow(signal?.reason) ? new Stop("stopped", signal.reason.message) : new Stop("cancelled", "cancelled");

export function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw cancelled(signal);
}

/** The budget refused a request: the caller decides whether the run can still end well. */
export function isBudgetStop(e: unknown): e is Stop {
  return e instanceof Stop && e.reason === "budget_exhausted";
}

/** Resolves with the promise, or rejects as soon as the signal fires (a tool or hook that ignores it). */
export function abortable<V>(p: Promise<V>, signal: AbortSignal | undefined): Promise<V> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(cancelled(signal));
  return new Promise<V>((resolve, reject) => {
    const onAbort = () => reject(cancelled(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(signal.aborted ? cancelled(signal) : e);
      },
    );
  });
}
