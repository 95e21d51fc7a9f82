import { describe, expect, it } from "vitest";
import { reciprocalRankFusion } from "./rrf.ts";

describe("reciprocalRankFusion", () => {
  it("sums 1/(60 + rank) over the lists, by hand", () => {
    // a: 1/61 + 1/63; b: 1/62 + 1/61; c: 1/63; d: 1/62
    const fused = reciprocalRankFusion([
      ["a", "b", "c"],
      ["b", "d", "a"],
    ]);
    expect(fused.map((f) => f.id)).toEqual(["b", "a", "d", "c"]);
    expect(fused[0]!.score).toBeCloseTo(1 / 62 + 1 / 61, 12);
    expect(fused[1]!.score).toBeCloseTo(1 / 61 + 1 / 63, 12);
    expect(fused[0]!.ranks).toEqual([2, 1]);
    expect(fused[2]!.ranks).toEqual([null, 2]);
  });

  it("breaks ties by best single rank, then id, deterministically", () => {
    // x and y both score 1/61 + 1/62 and both have a best rank of 1: the id decides.
    const fused = reciprocalRankFusion([["y", "x"], ["x", "y"], ["q"]]);
    expect(fused.map((f) => f.id)).toEqual(["x", "y", "q"]);
    expect(reciprocalRankFusion([["b"], ["a"]]).map((f) => f.id)).toEqual(["a", "b"]);
  });

  it("counts a duplicate within a list once", () => {
    const [f] = reciprocalRankFusion([["a", "a"]]);
    expect(f!.score).toBeCloseTo(1 / 61, 12);
  });
});

describe("weighted reciprocalRankFusion", () => {
  it("scales each list's contribution by its weight", () => {
    // Equal weights: a = 1/61 + 1/62 = b. With the second list at 0.5, a (first in the first list) wins.
    const lists = [
      ["a", "b"],
      ["b", "a"],
    ];
    const fused = reciprocalRankFusion(lists, 60, [1, 0.5]);
    expect(fused.map((f) => f.id)).toEqual(["a", "b"]);
    expect(fused[0]!.score).toBeCloseTo(1 / 61 + 0.5 / 62, 12);
    expect(fused[1]!.score).toBeCloseTo(1 / 62 + 0.5 / 61, 12);
    // A document only the weak list found still enters the ranking, below what both agree on.
    expect(reciprocalRankFusion([["a"], ["c", "a"]], 60, [1, 0.5]).map((f) => f.id)).toEqual(["a", "c"]);
  });
});
