import { describe, expect, it } from "vitest";
import { sampleFinding } from "../export/testing.ts";
import { completeScores, computeScores, recomputeScores, scoreOf } from "./scores.ts";

const critical = sampleFinding({ severity: "critical", category: "security" });
const medium = sampleFinding({ severity: "medium", category: "reliability", file: "src/b.ts" });

describe("scores computed from findings", () => {
  it("follow 100 · e^(−Σ weight / 100), overall and per category with findings", () => {
    expect(scoreOf([])).toBe(100);
    expect(scoreOf([critical])).toBe(67);
    expect(scoreOf(Array.from({ length: 5 }, () => sampleFinding({ severity: "high" })))).toBe(37);
    expect(computeScores([critical, medium])).toEqual({
      overallScore: 62,
      categoryScores: { security: 67, reliability: 92 },
    });
  });

  it("complete only what the model left out", () => {
    expect(completeScores({ overall_score: 50, category_scores: { security: 10 } }, [critical, medium])).toEqual({
      overallScore: 50,
      categoryScores: { security: 10, reliability: 92 },
      computed: ["reliability"],
    });
  });

  it("are computed again when a later stage drops findings; the model's stay", () => {
    const report = {
      overallScore: 62,
      categoryScores: { security: 67, reliability: 40 },
      computedScores: ["overall" as const, "security" as const],
    };
    // The security finding fell outside the review's scope: its computed category now has none.
    expect(recomputeScores(report, [medium])).toEqual({
      overallScore: 92,
      categoryScores: { security: 100, reliability: 40 },
    });
    expect(recomputeScores({ ...report, computedScores: undefined }, [medium])).toEqual({
      overallScore: 62,
      categoryScores: { security: 67, reliability: 40 },
    });
  });
});
