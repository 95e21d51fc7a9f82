/**
 * Extracting the tagged answer, with repair turns: the exact error goes back to the model, which
 * replies without tools. The repairs are counted over the whole run (answer and critique rounds).
 */
import { extractTagged } from "../contract.ts";
import { type LoopRun, note, status } from "./state.ts";
import { isBudgetStop } from "./stop.ts";
import { noToolsTurn } from "./turn.ts";
import type { Contract } from "./types.ts";

/** The validated value, or undefined when every attempt failed (state.contractError says why). */
export async function extractWithRepair<T>(run: LoopRun, c: Contract<T>, text: string): Promise<T | undefined> {
  const s = run.state;
  for (let repaired = false; ; repaired = true) {
    const r = extractTagged(text, c.tag, c.schema);
    if (r.ok) {
      if (repaired) note(run, `${c.tag.toLowerCase()} repaired`);
      return r.value;
    }
    s.contractError = r.error;
    if (s.repairs >= run.maxRepairs) return undefined;
    s.repairs++;
    status(run, "repairing", `the ${c.tag} could not be used; asking for a corrected one`);
    try {
      text = (await noToolsTurn(run, "repairing", c.repairMessage(r.error))).text;
    } catch (e) {
      if (isBudgetStop(e)) return undefined;
      throw e;
    }
  }
}
