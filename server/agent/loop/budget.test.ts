/** budgetNearlySpent: the exact room the loop keeps for the final pass. */
import { describe, expect, it } from "vitest";
import { createBudget, estimateInputTokens } from "../../llm/index.ts";
import { budgetNearlySpent } from "./budget.ts";
import type { LoopRun } from "./state.ts";
import { useScriptedRuns } from "./test-support.ts";

const llm = useScriptedRuns();

const prompt = (run: LoopRun) => estimateInputTokens(run.system, run.state.messages, run.defs);

describe("budgetNearlySpent", () => {
  it("never says so without a budget", () => {
    expect(budgetNearlySpent(llm.start([]).run)).toBe(false);
  });

  it("keeps twice the prompt + 1024 + the final reserve + the reserve for later stages", () => {
    const opts = { finalReserveTokens: 500, reserve: { tokens: 300 } };
    const need = (run: LoopRun) => 2 * prompt(run) + 1024 + 500 + 300;
    const probe = llm.start([], opts).run;
    const exact = llm.start([], { ...opts, budget: createBudget({ maxTokens: need(probe) }) }).run;
    const short = llm.start([], { ...opts, budget: createBudget({ maxTokens: need(probe) - 1 }) }).run;
    expect(budgetNearlySpent(exact)).toBe(false);
    expect(budgetNearlySpent(short)).toBe(true);
    // The estimate follows the conversation: a longer history needs more room.
    exact.state.messages.push({ role: "assistant", content: [{ type: "text", text: "y".repeat(400) }] });
    expect(budgetNearlySpent(exact)).toBe(true);
  });

  it("counts what was spent already", () => {
    const budget = createBudget({ maxTokens: 100_000 });
    const { run } = llm.start([], { budget });
    expect(budgetNearlySpent(run)).toBe(false);
    budget.spentTokens = 100_000 - (2 * prompt(run) + 1024 + 4096) + 1;
    expect(budgetNearlySpent(run)).toBe(true);
  });

  it("checks the cost limit with the model's prices", () => {
    const probe = llm.start([]).run;
    const price = probe.llm.info.pricing!;
    const needUsd = (2 * prompt(probe) * price.inputPerMTok + (1024 + 4096) * price.outputPerMTok) / 1e6 + 0.01;
    const opts = { reserve: { usd: 0.01 } };
    expect(
      budgetNearlySpent(llm.start([], { ...opts, budget: createBudget({ maxCostUsd: needUsd * 1.01 }) }).run),
    ).toBe(false);
    expect(
      budgetNearlySpent(llm.start([], { ...opts, budget: createBudget({ maxCostUsd: needUsd * 0.99 }) }).run),
    ).toBe(true);
  });
});
