/** critique: rounds that may revise the accepted value, and when it keeps the value as it was. */
import { describe, expect, it } from "vitest";
import { createBudget } from "../../llm/index.ts";
import { critique } from "./critique.ts";
import { answerContract, critiqueRules, ofType, useScriptedRuns } from "./test-support.ts";

const llm = useScriptedRuns();

describe("critique", () => {
  it("does nothing when the contract has no critique", async () => {
    const { run } = llm.start([]);
    expect(await critique(run, answerContract(), { n: 1 })).toEqual({ n: 1 });
    expect(llm.server.requests).toHaveLength(0);
  });

  it("takes a revised value, and ends the rounds once an answer comes back unchanged", async () => {
    const { run, events } = llm.start([
      { match: 'Critique this: {"n":1}', text: 'ANSWER: {"n": 2}' },
      { match: 'Critique this: {"n":2}', text: 'ANSWER: {"n": 2}' },
    ]);
    expect(await critique(run, answerContract(critiqueRules(5)), { n: 1 })).toEqual({ n: 2 });
    expect(llm.server.requests).toHaveLength(2);
    expect(run.state.critiqueRounds).toBe(2);
    expect(run.state.notes).toEqual(["revised by self-critique"]);
    expect(ofType(events, "status").map((e) => e.message)).toEqual([
      "self-critique round 1 of 5",
      "self-critique round 2 of 5",
    ]);
  });

  it("may use the tools within a round, labelled as critiquing", async () => {
    const { run, events } = llm.start([
      { match: "Critique this", toolCalls: [{ name: "read_file", input: { path: "README.md" } }] },
      { match: "# demo", text: 'ANSWER: {"n": 1}' },
    ]);
    expect(await critique(run, answerContract(critiqueRules(1)), { n: 1 })).toEqual({ n: 1 });
    expect(ofType(events, "tool_result")).toMatchObject([{ name: "read_file", isError: false }]);
    expect(ofType(events, "tool_call").length).toBe(1);
    expect(run.state.notes).toEqual([]);
  });

  it("gets a forced answer when a round runs out of turns", async () => {
    const { run } = llm.start([
      { match: "Give the ANSWER now", text: 'ANSWER: {"n": 3}' },
      { toolCalls: [{ name: "list_dir", input: {} }] },
    ]);
    expect(await critique(run, answerContract(critiqueRules(1, 2)), { n: 1 })).toEqual({ n: 3 });
    expect(run.state.notes).toEqual(["forced final pass (iteration limit reached)", "revised by self-critique"]);
  });

  it("keeps the value when the round's answer stays unusable", async () => {
    const { run } = llm.start([{ text: "I changed my mind." }], { maxRepairs: 0 });
    expect(await critique(run, answerContract(critiqueRules(2)), { n: 1 })).toEqual({ n: 1 });
    expect(run.state.notes).toEqual(["self-critique answer unusable; kept the earlier report"]);
    expect(run.state.critiqueRounds).toBe(1);
  });

  it("is skipped when the budget is nearly spent", async () => {
    const { run } = llm.start([{ text: "never sent" }], { budget: createBudget({ maxTokens: 100 }) });
    expect(await critique(run, answerContract(critiqueRules(2)), { n: 1 })).toEqual({ n: 1 });
    expect(run.state.notes).toEqual(["self-critique skipped (budget nearly spent)"]);
    expect(llm.server.requests).toHaveLength(0);
  });

  it("keeps the value when the budget runs out inside a round", async () => {
    // Room for the round to start; its one tool turn spends all but 50 tokens, so the forced final pass is refused.
    const budget = createBudget({ maxTokens: 8000 });
    const { run } = llm.start([{ toolCalls: [{ name: "list_dir", input: {} }], usage: { input: 7850, output: 100 } }], {
      budget,
      finalReserveTokens: 1000,
    });
    expect(await critique(run, answerContract(critiqueRules(1, 1)), { n: 1 })).toEqual({ n: 1 });
    expect(run.state.notes).toContain("self-critique stopped (budget spent); kept the earlier report");
    expect(llm.server.requests).toHaveLength(1);
  });
});
