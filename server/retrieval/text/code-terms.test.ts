import { describe, expect, it } from "vitest";
import { codeTermTable, tableFrom, translationScore } from "./code-terms.ts";
import { stem, terms } from "./terms.ts";

const asIs = (s: string) => s;
const small = tableFrom(
  {
    terms: {
      plain: [
        ["proto", 0.1],
        ["plain", 0.05],
      ],
      whitespac: [
        ["trim", 0.2],
        ["space", 0.1],
      ],
    },
  },
  asIs,
);
const weighted = (text: string) => [...new Set(terms(text))].map((term) => ({ term, weight: 1 }));
const termSet = (text: string) => new Set(terms(text));

describe("code-terms", () => {
  it("the shipped table maps everyday doc words to the code words functions use for them", () => {
    const t = codeTermTable(asIs);
    const of = (w: string) => (t.get(stem(w)) ?? []).map(([c]) => c);
    expect(of("directory")).toContain(stem("dir"));
    expect(of("remove")).toContain(stem("remove"));
    expect(of("empty").length).toBeGreaterThan(1);
    // Each doc word's best translation counts 1, the others less.
    for (const list of [...t.values()].slice(0, 50)) {
      expect(list[0]![1]).toBe(1);
      for (const [, p] of list) expect(p).toBeLessThanOrEqual(1);
    }
  });

  it("a query word the text lacks counts by the best translation the text has", () => {
    const q = weighted("strip trailing whitespace");
    const trims = termSet("function clean(s) { return s.trimEnd() }");
    const spaces = termSet("const space = ' '");
    const neither = termSet("function sum(a, b) { return a + b }");
    expect(translationScore(small, q, trims)).toBeCloseTo(1 / 3);
    expect(translationScore(small, q, spaces)).toBeCloseTo(0.5 / 3);
    expect(translationScore(small, q, neither)).toBe(0);
    // The query's own words count in full, translated ones by `translated`.
    expect(translationScore(small, q, termSet("stripTrailingWhitespace"))).toBe(1);
    expect(translationScore(small, q, trims, 0.5)).toBeCloseTo(0.5 / 3);
  });

  it("weighs the query's terms by their weights", () => {
    const q = [
      { term: stem("plain"), weight: 3 },
      { term: stem("object"), weight: 1 },
    ];
    expect(translationScore(small, q, termSet("obj.__proto__"))).toBeCloseTo(0.75);
    expect(translationScore(small, q, termSet("object"))).toBeCloseTo(0.25);
  });
});
