/**
 * When to stop exploring: while there is still room for the final pass — about twice the current
 * prompt plus the reserved output, plus whatever later stages (verification) keep back.
 */
import { estimateInputTokens } from "../../llm/index.ts";
import type { LoopRun } from "./state.ts";

/** True when one more exploring turn could leave too little for the final pass. */
export function budgetNearlySpent(run: LoopRun): boolean {
  const b = run.budget;
  if (!b) return false;
  const prompt = estimateInputTokens(run.system, run.state.messages, run.defs);
  // The next turn reads the prompt once, the final pass reads it again plus that turn's output.
  const needTokens = 2 * prompt + 1024 + run.finalReserve + run.reserve.tokens;
  if (b.remainingTokens() < needTokens) return true;
  const price = run.llm.info.pricing;
  if (b.limits.maxCostUsd !== undefined && price) {
    const needUsd =
      (2 * prompt * price.inputPerMTok + (1024 + run.finalReserve) * price.outputPerMTok) / 1e6 + run.reserve.usd;
    if (b.remainingUsd() < needUsd) return true;
  }
  return false;
}
