/**
 * Finishing a chat turn (no contract): the answer is the model's text. After a limit comes a forced
 * final answer, so a chat never ends silently; an answer cut off at the output limit is continued a
 * bounded number of times. Running out of budget here keeps what the model has said so far.
 */
import * as P from "../prompts.ts";
import { forcedFinal, hitLimit } from "./forced-final.ts";
import { type LoopRun, note, status } from "./state.ts";
import { isBudgetStop } from "./stop.ts";
import { noToolsTurn } from "./turn.ts";
import type { ExploreEnd } from "./types.ts";

const WORDING = {
  name: "forced final answer",
  whyIterations: P.WHY_CHAT_ITERATIONS,
  whyBudget: P.WHY_CHAT_BUDGET,
  whyStopped: P.WHY_CHAT_STOPPED,
  message: P.chatForcedFinalMessage,
};

export async function finishChat(run: LoopRun, end: ExploreEnd): Promise<string> {
  if (hitLimit(end)) {
    try {
      return (await forcedFinal(run, end, WORDING)).text;
    } catch (e) {
      if (isBudgetStop(e)) return run.state.lastTurn?.text ?? "";
      throw e;
    }
  }
  let t = run.state.lastTurn!;
  let answer = t.text;
  for (let i = 0; t.stopReason === "max_tokens" && i < run.maxRecoveries; i++) {
    run.state.recoveries++;
    note(run, "answer continued after the output limit");
    status(run, "max_tokens_recovery", "the answer was cut off at the output limit; continuing");
    try {
      t = await noToolsTurn(run, "max_tokens_recovery", P.CHAT_CONTINUE);
    } catch (e) {
      if (isBudgetStop(e)) break;
      throw e;
    }
    answer += t.text;
  }
  if (t.stopReason === "max_tokens") note(run, "answer truncated at the output limit");
  return answer;
}
