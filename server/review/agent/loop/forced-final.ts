/**
 * The forced final pass: when the exploration ran out of turns or budget, one no-tools turn that asks
 * for the answer now, from what the model has read so far. The wording is the mode's (contract or chat).
 */
import { type LoopRun, note, status } from "./state.ts";
import { noToolsTurn } from "./turn.ts";
import type { ExploreEnd, Turn } from "./types.ts";

export interface ForcedFinalWording {
  /** What the note calls the pass: "forced final pass" (contract) or "forced final answer" (chat). */
  name: string;
  whyIterations: string;
  whyBudget: string;
  message: (why: string) => string;
}

export async function forcedFinal(
  run: LoopRun,
  end: "max_iterations" | "budget_exhausted",
  w: ForcedFinalWording,
): Promise<Turn> {
  const why = end === "max_iterations" ? w.whyIterations : w.whyBudget;
  note(run, `${w.name} (${end === "max_iterations" ? "iteration limit reached" : "budget nearly spent"})`);
  status(run, "forced_final", why);
  return noToolsTurn(run, "forced_final", w.message(why));
}

/** True when the exploration stopped at a limit rather than with an answer. */
export const hitLimit = (end: ExploreEnd): end is "max_iterations" | "budget_exhausted" =>
  end === "max_iterations" || end === "budget_exhausted";
