/** forcedFinal: the one no-tools pass after a limit, in the wording it is given. */
import { describe, expect, it } from "vitest";
import { type ForcedFinalWording, forcedFinal, hitLimit } from "./forced-final.ts";
import { ofType, useScriptedRuns } from "./test-support.ts";

const llm = useScriptedRuns();

const wording: ForcedFinalWording = {
  name: "forced final pass",
  whyIterations: "Out of steps.",
  whyBudget: "Out of budget.",
  whyStopped: "Stopped by a teammate.",
  message: (why) => `${why} Answer now.`,
};

describe("forcedFinal", () => {
  it("after the iteration limit: notes it, says why, and asks without tools and with little reasoning", async () => {
    const { run, events, sent } = llm.start([{ match: "Out of steps. Answer now.", text: "Final." }]);
    const turn = await forcedFinal(run, "max_iterations", wording);
    expect(turn.text).toBe("Final.");
    expect(run.state.notes).toEqual(["forced final pass (iteration limit reached)"]);
    expect(ofType(events, "status")).toEqual([
      { type: "status", phase: "forced_final", message: "Out of steps.", iteration: 0 },
    ]);
    expect(sent[0]).toMatchObject({ toolChoice: "none", reasoningEffort: "minimal" });
    expect(ofType(events, "token").every((e) => e.phase === "forced_final")).toBe(true);
  });

  it("after the budget: its own reason and note", async () => {
    const { run } = llm.start([{ match: "Out of budget. Answer now.", text: "Final." }]);
    await forcedFinal(run, "budget_exhausted", { ...wording, name: "forced final answer" });
    expect(run.state.notes).toEqual(["forced final answer (budget nearly spent)"]);
  });

  it("hitLimit tells a limit from an answer", () => {
    expect(["end_turn", "max_tokens", "max_iterations", "budget_exhausted"].map((e) => hitLimit(e as never))).toEqual([
      false,
      false,
      true,
      true,
    ]);
  });
});
