/** answerWithContract: from the end of an exploration to the validated tagged answer. */
import { describe, expect, it } from "vitest";
import { createBudget } from "../../llm/index.ts";
import { answerWithContract } from "./answer.ts";
import { explore } from "./explore.ts";
import { answerContract, useScriptedRuns } from "./test-support.ts";

const llm = useScriptedRuns();
const c = answerContract();

describe("answerWithContract", () => {
  it("takes the answer the exploration ended with, without another request", async () => {
    const { run } = llm.start([{ text: 'ANSWER: {"n": 1}' }]);
    const end = await explore(run, "exploring", 5);
    expect(await answerWithContract(run, c, end)).toEqual({ text: 'ANSWER: {"n": 1}', value: { n: 1 } });
    expect(llm.server.requests).toHaveLength(1);
  });

  it("nudges an answer cut off at max_tokens, at most maxTokensRecoveries times", async () => {
    const { run } = llm.start([{ text: "I will now", stopReason: "max_tokens" }], { maxTokensRecoveries: 2 });
    const end = await explore(run, "exploring", 5);
    expect(end).toBe("max_tokens");
    const out = await answerWithContract(run, c, end);
    expect(out.value).toBeUndefined(); // still cut off, then the repairs found no tag
    expect(llm.turns().slice(1, 3)).toEqual(["Cut off: give the ANSWER now.", "Cut off: give the ANSWER now."]);
    expect(run.state).toMatchObject({ recoveries: 2, repairs: 2 });
    expect(run.state.notes).toContain("max_tokens recovery");
  });

  it("stops nudging once the answer is complete", async () => {
    const { run } = llm.start([
      { match: "Cut off", text: 'ANSWER: {"n": 2}' },
      { text: "I will now", stopReason: "max_tokens" },
    ]);
    const out = await answerWithContract(run, c, await explore(run, "exploring", 5));
    expect(out).toEqual({ text: 'ANSWER: {"n": 2}', value: { n: 2 } });
    expect(run.state.recoveries).toBe(1);
  });

  it("runs the forced final pass with the contract's message after a limit", async () => {
    const { run } = llm.start([
      { match: "Give the ANSWER now", text: 'ANSWER: {"n": 5}' },
      { toolCalls: [{ name: "list_dir", input: {} }] },
    ]);
    const end = await explore(run, "exploring", 2);
    expect(await answerWithContract(run, c, end)).toMatchObject({ value: { n: 5 } });
    expect(llm.turns()[2]).toContain("You have reached the iteration limit for this review. Give the ANSWER now.");
    expect(run.state.notes).toEqual(["forced final pass (iteration limit reached)"]);
  });

  it("gives the text as first answered, before repairs", async () => {
    const { run } = llm.start([{ match: "Fix your ANSWER", text: 'ANSWER: {"n": 6}' }, { text: "ANSWER: nope" }]);
    const out = await answerWithContract(run, c, await explore(run, "exploring", 5));
    expect(out).toEqual({ text: "ANSWER: nope", value: { n: 6 } });
  });

  it("throws the budget Stop when not even the forced final pass fits", async () => {
    const { run } = llm.start([{ text: "never sent" }], { budget: createBudget({ maxTokens: 10 }) });
    const end = await explore(run, "exploring", 5);
    expect(end).toBe("budget_exhausted");
    await expect(answerWithContract(run, c, end)).rejects.toMatchObject({ reason: "budget_exhausted" });
  });
});
