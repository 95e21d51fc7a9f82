import { describe, expect, it } from "vitest";
import { budgetRefusal, nextReset, untilReset, type BudgetState } from "./budget.ts";

describe("the daily chat budget's day", () => {
  const now = new Date("2026-03-04T21:40:00Z");

  it("resets at the next 00:00 UTC", () => {
    expect(nextReset(now).toISOString()).toBe("2026-03-05T00:00:00.000Z");
    expect(untilReset(now, nextReset(now))).toBe("in 2 h 20 min");
    expect(untilReset(new Date("2026-03-04T23:59:30Z"), nextReset(now))).toBe("in 1 min");
  });

  it("refuses with what was spent, the limit and when it resets", () => {
    const state: BudgetState = {
      budget: { maxTokens: 1000, maxCostUsd: 0.5 },
      spent: { tokens: 1200, costUsd: 0.25 },
      resetsAt: nextReset(now).toISOString(),
      remaining: { maxTokens: 0, maxCostUsd: 0.25 },
      exhausted: true,
    };
    expect(budgetRefusal(state, now)).toBe(
      "The workspace's daily chat budget is spent (1,200 of 1,000 tokens, $0.25 of $0.50 used today). It resets at 00:00 UTC (2026-03-05 00:00 UTC, in 2 h 20 min); an owner can raise it in Settings.",
    );
  });
});
