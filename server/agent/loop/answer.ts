/**
 * Answering with the contract: from the end of an exploration to the text that should hold the tagged
 * JSON (a forced final pass after a limit, max_tokens nudges after a cut-off answer), then extracting
 * and validating it with repairs. Used for the answer and for each self-critique round.
 */
import * as P from "../prompts.ts";
import { forcedFinal, hitLimit } from "./forced-final.ts";
import { extractWithRepair } from "./repair.ts";
import { type LoopRun, note, status } from "./state.ts";
import { noToolsTurn } from "./turn.ts";
import type { Contract, ExploreEnd } from "./types.ts";

export interface ContractAnswer<T> {
  /** The answer as first given (before any repair turn). */
  text: string;
  /** Undefined when no repair made it usable. */
  value: T | undefined;
}

/** Throws the budget Stop when the budget runs out before there is a text. */
export async function answerWithContract<T>(run: LoopRun, c: Contract<T>, end: ExploreEnd): Promise<ContractAnswer<T>> {
  const text = await contractText(run, c, end);
  return { text, value: await extractWithRepair(run, c, text) };
}

async function contractText<T>(run: LoopRun, c: Contract<T>, end: ExploreEnd): Promise<string> {
  if (hitLimit(end)) {
    const wording = {
      name: "forced final pass",
      whyIterations: P.WHY_ITERATIONS,
      whyBudget: P.WHY_BUDGET,
      whyStopped: P.WHY_STOPPED,
      message: c.forcedMessage,
    };
    return (await forcedFinal(run, end, wording)).text;
  }
  let t = run.state.lastTurn!;
  for (let i = 0; t.stopReason === "max_tokens" && i < run.maxRecoveries; i++) {
    run.state.recoveries++;
    note(run, "max_tokens recovery");
    status(run, "max_tokens_recovery", "the answer was cut off at the output limit; asking for the report now");
    t = await noToolsTurn(run, "max_tokens_recovery", c.maxTokensNudge);
  }
  return t.text;
}
