import { describe, expect, it } from "vitest";
import { lineLocator } from "./line-locator.ts";

describe("lineLocator", () => {
  it("maps character offsets to 1-based lines, newlines belonging to the line they end", () => {
    const text = "ab\ncd\n\nefg";
    const lineOf = lineLocator(text);
    expect([0, 1, 2, 3, 5, 6, 7, 9].map(lineOf)).toEqual([1, 1, 1, 2, 2, 3, 4, 4]);
    expect(lineLocator("")(0)).toBe(1);
  });
});
