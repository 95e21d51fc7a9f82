/**
 * The forced final pass: when the exploration ran out of turns or budget, or was stopped, one no-tools
 * turn that asks for the answer now, from what the model has read so far. The wording is the mode's (contract or chat).
 */
import { type LoopRun, note, status } from "./state.ts";
import { noToolsTurn } from "./turn.ts";
import type { ExploreEnd, Turn } from "./types.ts";

export interface ForcedFinalWording {
  /** What the note calls the pass: "forced final pass" (contract) or "forced final answer" (chat). */
  name: string;
  whyIterations: string;
  whyBudget: string;
  whyStopped: string;
  message: (why: string) => string;
}

export async function forcedFinal(run: LoopRun, end: Limit, w: ForcedFinalWording): Promise<Turn> {
  const why = { max_iterations: w.whyIterations, budget_exhausted: w.whyBudget, stopped: w.whyStopped }[end];
  const label = {
    max_iterations: "iteration limit reached",
    budget_exhausted: "budget nearly spent",
    stopped: "stopped",
  };
  note(run, `${w.name} (${label[end]})`);
  status(run, "forced_final", why);
  return noToolsTurn(run, "forced_final", w.message(why));
}

type Limit = "max_iterations" | "budget_exhausted" | "stopped";

/** True when the exploration stopped at a limit (or was stopped) rather than with an answer. */
export const hitLimit = (end: ExploreEnd): end is Limit =>
  end === "max_iterations" || end === "budget_exhausted" || end === "stopped";
