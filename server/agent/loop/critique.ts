/**
 * Self-critique: the accepted value goes back to the model, which may re-check it with tools for a few
 * turns and then answer with the contract again. A changed answer replaces the value; an unchanged one
 * ends the rounds; an unusable one, or a budget that runs out, keeps the value as it was.
 */
import { answerWithContract } from "./answer.ts";
import { budgetNearlySpent } from "./budget.ts";
import { explore } from "./explore.ts";
import { type LoopRun, note, say, status } from "./state.ts";
import { Stop, isBudgetStop } from "./stop.ts";
import type { Contract } from "./types.ts";

export async function critique<T>(run: LoopRun, c: Contract<T>, value: T): Promise<T> {
  if (!c.critique) return value;
  const { rounds, maxIterations: turns, message } = c.critique;
  for (let round = 0; round < rounds; round++) {
    if (budgetNearlySpent(run)) {
      note(run, "self-critique skipped (budget nearly spent)");
      return value;
    }
    run.state.critiqueRounds++;
    status(run, "critiquing", `self-critique round ${round + 1} of ${rounds}`);
    say(run, message(JSON.stringify(value, null, 1)));
    let revised: T | undefined;
    try {
      const end = await explore(run, "critiquing", turns);
      revised = (await answerWithContract(run, c, end)).value;
    } catch (e) {
      if (isBudgetStop(e)) {
        note(run, "self-critique stopped (budget spent); kept the earlier report");
        return value;
      }
      if (e instanceof Stop && e.reason === "stopped") {
        note(run, e.message);
        run.state.stopReason = "stopped";
        return value;
      }
      throw e;
    }
    if (revised === undefined) {
      note(run, "self-critique answer unusable; kept the earlier report");
      return value;
    }
    if (JSON.stringify(revised) === JSON.stringify(value)) break;
    note(run, "revised by self-critique");
    value = revised;
  }
  return value;
}
