/** extractWithRepair: the exact error back to the model, a bounded number of times per run. */
import { describe, expect, it } from "vitest";
import { createBudget } from "../../llm/index.ts";
import { extractWithRepair } from "./repair.ts";
import { answerContract, ofType, useScriptedRuns } from "./test-support.ts";

const llm = useScriptedRuns();
const c = answerContract();

describe("extractWithRepair", () => {
  it("returns a valid answer without asking again", async () => {
    const { run } = llm.start([]);
    expect(await extractWithRepair(run, c, 'Done.\nANSWER: {"n": 3}')).toEqual({ n: 3 });
    expect(llm.server.requests).toHaveLength(0);
    expect(run.state).toMatchObject({ repairs: 0, notes: [] });
  });

  it("sends the exact validation error back and takes the corrected answer", async () => {
    const { run, events, sent } = llm.start([{ match: "Fix your ANSWER", text: 'ANSWER: {"n": 4}' }]);
    expect(await extractWithRepair(run, c, 'ANSWER: {"n": "four"}')).toEqual({ n: 4 });
    expect(llm.turns()[0]).toContain("Fix your ANSWER: The ANSWER JSON does not match the required schema:\n- n:");
    expect(sent[0]).toMatchObject({ toolChoice: "none" });
    expect(run.state).toMatchObject({ repairs: 1, notes: ["answer repaired"] });
    expect(ofType(events, "status")).toMatchObject([
      { phase: "repairing", message: "the ANSWER could not be used; asking for a corrected one" },
    ]);
  });

  it("gives up after maxRepairs, counted over the whole run, and keeps the last error", async () => {
    const { run } = llm.start([{ text: "Still no answer." }], { maxRepairs: 1 });
    expect(await extractWithRepair(run, c, "no tag")).toBeUndefined();
    expect(llm.server.requests).toHaveLength(1);
    expect(run.state.contractError).toMatch(/^No "ANSWER:" line was found/);
    // A later answer in the same run (a critique round) has no repairs left.
    expect(await extractWithRepair(run, c, "ANSWER: {")).toBeUndefined();
    expect(llm.server.requests).toHaveLength(1);
    expect(run.state.contractError).not.toMatch(/^No "ANSWER:" line/);
  });

  it("gives up without throwing when the budget refuses the repair turn", async () => {
    const { run } = llm.start([{ text: "never sent" }], { budget: createBudget({ maxTokens: 10 }) });
    expect(await extractWithRepair(run, c, "no tag")).toBeUndefined();
    expect(llm.server.requests).toHaveLength(0);
  });
});
