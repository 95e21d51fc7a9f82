/**
 * Exploring: tool-using turns until the model answers without tools, the turn limit is spent or the
 * budget is nearly spent. Before each turn the run's beforeTurn hook (steering) may add hints or hold
 * the loop; without a hook nothing happens there.
 */
import type { Phase } from "../events.ts";
import { budgetNearlySpent } from "./budget.ts";
import { type LoopRun, say } from "./state.ts";
import { Stop, abortable, isBudgetStop, throwIfCancelled } from "./stop.ts";
import { answerToolCalls } from "./tools.ts";
import { modelTurn } from "./turn.ts";
import type { ExploreEnd, Turn } from "./types.ts";

export async function explore(run: LoopRun, phase: Phase, limit: number): Promise<ExploreEnd> {
  for (let spent = 0; ; spent++) {
    throwIfCancelled(run.signal);
    if (spent >= limit) return "max_iterations";
    await beforeTurn(run, phase);
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

/** The steering seam: waits for the hook (a pause), then adds the hints it returned. */
async function beforeTurn(run: LoopRun, phase: Phase): Promise<void> {
  if (!run.beforeTurn) return;
  let hints: string[] | void;
  try {
    hints = await abortable(Promise.resolve(run.beforeTurn(run.state, phase)), run.signal);
  } catch (e) {
    if (e instanceof Stop) throw e;
    throw new Stop("error", `The beforeTurn hook failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  throwIfCancelled(run.signal);
  for (const hint of hints ?? []) if (hint.trim()) say(run, hint);
}
