/**
 * The tool-using agent loop (Argus seed: services/agent/loop.py), shared by reviews, chat turns (Ask,
 * room chat) and the verification pass:
 *
 *   stream a turn → run its tool calls → append the results → repeat, until the model answers without
 *   tools, `maxIterations` turns were spent, or the budget is nearly spent.
 *
 * With a contract (review: `REPORT: {json}`, verification: `VERDICT: {json}`) the final text must carry
 * the tagged JSON: a turn cut off at max_tokens gets a nudge to emit it now; a loop that ran out of
 * iterations or budget gets one forced no-tools pass; an answer that does not parse or validate gets
 * the exact error back for a bounded number of repair turns; then optional self-critique rounds let the
 * model revise, downgrade or merge before the answer is accepted. Chat mode has no contract, and its own
 * forced final answer so a chat never ends silently.
 *
 * Budget: exploration stops while there is still room for the final pass (about twice the current
 * prompt plus `finalReserveTokens`, plus any `reserve` kept for later stages such as verification).
 * Cancellation: the signal aborts the HTTP request and any running tool; the outcome says "cancelled"
 * ("stopped" when the abort reason is a StopNow: a contract answer already accepted is kept).
 * Nothing a model sends throws out of here; a failed request ends the loop with stopReason "error".
 *
 * This file is the driver; each step is a function in ./loop/ over one run object (options + LoopState),
 * see the README. `beforeTurn` is the seam for steering between iterations. The review's REPORT
 * contract and its `runAgent` entry are server/review/reviewer/run-agent.ts; chat turns are ./chat.ts.
 */
import { type ContractAnswer, answerWithContract } from "./loop/answer.ts";
import { finishChat } from "./loop/chat.ts";
import { critique } from "./loop/critique.ts";
import { explore } from "./loop/explore.ts";
import { type Ending, finish, stopped } from "./loop/finish.ts";
import { hitLimit } from "./loop/forced-final.ts";
import { type LoopRun, note, startRun, status } from "./loop/state.ts";
import { Stop, isBudgetStop } from "./loop/stop.ts";
import type { Contract, ExploreEnd, LoopOptions, LoopOutcome } from "./loop/types.ts";

export { DEFAULT_MAX_ITERATIONS, pushUser } from "./loop/state.ts";
export type { BeforeTurn, Contract, LoopOptions, LoopOutcome, LoopState } from "./loop/types.ts";

export async function runLoop<T>(o: LoopOptions<T>): Promise<LoopOutcome<T>> {
  const run = startRun(o);
  try {
    status(run, run.phase, "started");
    const end = await explore(run, run.phase, run.maxIterations);
    run.state.stopReason = hitLimit(end) ? end : "end_turn";
    if (!o.contract) return finish(run, { stopReason: run.state.stopReason, answer: await finishChat(run, end) });
    return finish(run, await finishWithContract(run, o.contract, end));
  } catch (e) {
    if (e instanceof Stop) {
      if (e.reason === "stopped") note(run, e.message);
      return finish(run, stopped(e));
    }
    throw e;
  }
}

/** The tagged answer (with repairs), then self-critique; or why there is none. */
async function finishWithContract<T>(run: LoopRun, c: Contract<T>, end: ExploreEnd): Promise<Ending<T>> {
  const stopReason = run.state.stopReason!;
  let answer: ContractAnswer<T>;
  try {
    answer = await answerWithContract(run, c, end);
  } catch (e) {
    if (!isBudgetStop(e)) throw e;
    return {
      stopReason: "budget_exhausted",
      error: `The budget ran out before the model produced its ${c.tag}: ${e.message}`,
    };
  }
  if (answer.value === undefined) {
    return {
      stopReason: "invalid_report",
      answer: answer.text,
      error: `No usable ${c.tag} after ${run.maxRepairs} repair attempt(s): ${run.state.contractError}`,
    };
  }
  // Self-critique only after a normal finish: a forced pass has no budget or iterations left for it.
  const value = stopReason === "end_turn" ? await critique(run, c, answer.value) : answer.value;
  // A Stop during the critique keeps the accepted answer, and the run says it was stopped.
  return { stopReason: run.state.stopReason ?? stopReason, value, answer: answer.text };
}
