import { describe, expect, it } from "vitest";
import { fitFromEnd, fitFromStart, jsonBytes } from "./reply-bytes.ts";

describe("reply byte budget", () => {
  const items = Array.from({ length: 10 }, (_, i) => ({ i, text: "x".repeat(98) }));
  const one = jsonBytes(items[0]);

  it("keeps the longest prefix whose JSON fits, and says it was cut", () => {
    const { kept, cut } = fitFromStart(items, 3 * one + 4);
    expect(kept.map((x) => x.i)).toEqual([0, 1, 2]);
    expect(cut).toBe(true);
    expect(jsonBytes(kept)).toBeLessThanOrEqual(3 * one + 4);
    expect(fitFromStart(items, 1e6)).toEqual({ kept: items, cut: false });
  });

  it("keeps one item even when it alone is over the budget (paging moves on)", () => {
    expect(fitFromStart(items, 10).kept).toHaveLength(1);
    expect(fitFromStart([], 10)).toEqual({ kept: [], cut: false });
  });

  it("counts UTF-8 bytes, not characters", () => {
    expect(jsonBytes("é")).toBe(4);
  });

  it("from the end keeps the newest of an oldest-first page", () => {
    expect(fitFromEnd(items, 2 * one + 3).kept.map((x) => x.i)).toEqual([8, 9]);
  });
});
