import { describe, expect, it } from "vitest";
import { LocalEmbedder } from "./embed/local.ts";
import { FUSION, fuse, fusionFor, rerankByRelevance } from "./fusion.ts";

describe("fuse", () => {
  it("sums min–max normalised scores; a chunk missing from a list gets nothing from it", () => {
    const text = [
      { key: "a", score: 12 },
      { key: "b", score: 7 },
      { key: "c", score: 2 },
    ];
    const vector = [
      { key: "c", score: 0.9 },
      { key: "d", score: 0.5 },
      { key: "a", score: 0.1 },
    ];
    // Both lists full (as deep as asked): each list's last score is its floor.
    const fused = fuse(text, vector, { text: 1, vector: 2 }, 3);
    // a: 1 + 2·0 = 1; b: 0.5; c: 0 + 2·1 = 2; d: 2·0.5 = 1.
    expect(fused.map((f) => [f.key, f.score])).toEqual([
      ["c", 2],
      ["a", 1],
      ["d", 1],
      ["b", 0.5],
    ]);
    expect(fused[0]).toEqual({ key: "c", score: 2, text: 2, vector: 0.9 });
    expect(fused[2]).toEqual({ key: "d", score: 1, vector: 0.5 });
  });

  it("keeps the spread of scores: a clear full-text winner stays ahead of a flat vector list", () => {
    const text = [
      { key: "x", score: 30 },
      { key: "y", score: 3 },
      { key: "z", score: 2.9 },
    ];
    const vector = [
      { key: "y", score: 0.5 },
      { key: "z", score: 0.499 },
      { key: "x", score: 0.498 },
    ];
    expect(fuse(text, vector, { text: 1, vector: 0.5 })[0]!.key).toBe("x");
  });

  it("a list shorter than asked for holds every match: its scores count from 0", () => {
    const text = [
      { key: "a", score: 10 },
      { key: "b", score: 4 },
    ];
    const vector = [
      { key: "c", score: 0.8 },
      { key: "d", score: 0.4 },
      { key: "a", score: 0.2 },
    ];
    const fused = fuse(text, vector, { text: 1, vector: 0.5 }, 3);
    // b keeps 4/10 = 0.4 (not 0): above d's 0.5 · (0.4 − 0.2) / 0.6.
    expect(fused.map((f) => f.key)).toEqual(["a", "c", "b", "d"]);
    expect(fused[2]!.score).toBeCloseTo(0.4, 12);
  });

  it("one list alone (the other leg found nothing) keeps its order", () => {
    const text = [
      { key: "p", score: 5 },
      { key: "q", score: 5 },
    ];
    expect(fuse(text, [], { text: 1, vector: 1 }).map((f) => f.key)).toEqual(["p", "q"]);
    expect(fuse([], text, { text: 1, vector: 1 }).map((f) => f.key)).toEqual(["p", "q"]);
  });
});

describe("fusionFor", () => {
  it("picks the settings of the index's embedder and profile", () => {
    expect(fusionFor(new LocalEmbedder().fit(["a prose text about wings"], 1).record())).toBe(FUSION.prose);
    expect(fusionFor(new LocalEmbedder().fit(["function f() {}"], 0).record())).toBe(FUSION.code);
    expect(fusionFor({ name: "openai", dims: 8, params: {}, paramsHash: "x" })).toBe(FUSION.model);
  });
});

describe("rerankByRelevance", () => {
  it("lifts a hit whose own relevance is high over a slightly better fused score, and scores the new order", () => {
    const page = [
      { key: "long-body", score: 6 },
      { key: "docstring", score: 5.4 },
      { key: "other", score: 2 },
    ];
    const out = rerankByRelevance(page, [0.2, 0.9, 0.1], 4);
    expect(out.map((o) => o.hit.key)).toEqual(["docstring", "long-body", "other"]);
    // fused share (of the page's best) + weight × relevance
    expect(out[0]!.score).toBeCloseTo(0.9 + 4 * 0.9);
    expect(out.map((o) => o.score)).toEqual([...out.map((o) => o.score)].sort((a, b) => b - a));
  });

  it("with equal relevance keeps the fused order", () => {
    const page = [
      { key: "a", score: 3 },
      { key: "b", score: 3 },
      { key: "c", score: 1 },
    ];
    expect(rerankByRelevance(page, [0.5, 0.5, 0.5], 4).map((o) => o.hit.key)).toEqual(["a", "b", "c"]);
  });

  it("is on for code indexes of the local embedder only (the model was fitted there)", () => {
    expect(FUSION.code.rerank).not.toBeNull();
    expect(FUSION.prose.rerank).toBeNull();
    expect(FUSION.model.rerank).toBeNull();
    expect(FUSION.hash.rerank).toBeNull();
  });
});
