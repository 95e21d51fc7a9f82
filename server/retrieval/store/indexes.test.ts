/**
 * The ANN query rule of store/indexes.ts: at least REFINE_CANDIDATES candidates are re-ranked on the
 * stored vectors whatever k, and a deep query is not charged a second factor on top of its own k.
 */
import { describe, expect, it } from "vitest";
import { REFINE_CANDIDATES, refineFactorFor } from "./indexes.ts";

describe("refineFactorFor", () => {
  it("re-ranks at least REFINE_CANDIDATES candidates", () => {
    for (const k of [1, 3, 7, 10, 11, 29, 30, 31, 100, 1000])
      expect(k * refineFactorFor(k)).toBeGreaterThanOrEqual(REFINE_CANDIDATES);
  });

  it("is 3 at k 10 (recall 0.998 at 250k rows) and 1 from k 30, never below 1", () => {
    expect(refineFactorFor(10)).toBe(3);
    expect(refineFactorFor(30)).toBe(1);
    expect(refineFactorFor(500)).toBe(1);
    expect(refineFactorFor(0)).toBe(REFINE_CANDIDATES);
  });
});
