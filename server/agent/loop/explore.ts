/**
 * Exploring: tool-using turns until the model answers without tools, the turn limit is spent, the
 * budget is nearly spent or the steering hook says stop. Before each turn the run's beforeTurn hook
 * (steering) may add hints, hold the loop, or stop it; without a hook nothing happens there.
 */
import type { Phase } from "../events.ts";
import { budgetNearlySpent } from "./budget.ts";
import { type LoopRun, note, say } from "./state.ts";
import { Stop, abortable, isBudgetStop, throwIfCancelled } from "./stop.ts";
import { answerToolCalls } from "./tools.ts";
import { modelTurn } from "./turn.ts";
import type { ExploreEnd, Steering, Turn } from "./types.ts";

export async function explore(run: LoopRun, phase: Phase, limit: number): Promise<ExploreEnd> {
  for (let spent = 0; ; spent++) {
    throwIfCancelled(run.signal);
    if (spent >= limit) return "max_iterations";
    if ((await beforeTurn(run, phase)) === "stop") return "stopped";
    // After the hook, so its hints count towards the prompt the budget check estimates.
    if (budgetNearlySpent(run)) return "budget_exhausted";
    let turn: Turn;
    try {
      turn = await modelTurn(run, phase, true);
    } catch (e) {
      if (isBudgetStop(e)) return "budget_exhausted";
      throw e;
    }
    if (!turn.calls.length) return turn.stopReason === "max_tokens" ? "max_tokens" : "end_turn";
    await answerToolCalls(run, turn.calls, true);
  }
}

/** The steering seam: waits for the hook (a pause), then adds the hints it returned; "stop" when it said so. */
async function beforeTurn(run: LoopRun, phase: Phase): Promise<"stop" | void> {
  if (!run.beforeTurn) return;
  let answer: string[] | Steering | void;
  try {
    answer = await abortable(Promise.resolve(run.beforeTurn(run.state, phase)), run.signal);
  } catch (e) {
    if (e instanceof Stop) throw e;
    throw new Stop("error", `The beforeTurn hook failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  throwIfCancelled(run.signal);
  const steering: Steering = Array.isArray(answer) ? { hints: answer } : (answer ?? {});
  for (const hint of steering.hints ?? []) if (hint.trim()) say(run, hint);
  if (steering.stop === undefined) return;
  note(run, steering.stop);
  return "stop";
}
