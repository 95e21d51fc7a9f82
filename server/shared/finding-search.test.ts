import { describe, expect, it } from "vitest";
import { findingLabel, matchingFindings } from "./finding-search.ts";

const finding = (i: number, title = `Finding ${i}`, file = `src/f${i % 3}.ts`) => ({
  fingerprint: `fp-${i}`,
  title,
  file,
  startLine: i + 1,
});

describe("matchingFindings", () => {
  const all = Array.from({ length: 2000 }, (_, i) => finding(i));

  it("offers the first few of thousands, never the finding itself, and says more match", () => {
    const { shown, more } = matchingFindings(all, "fp-0", "", 20);
    expect(shown.map((f) => f.fingerprint)).toEqual(Array.from({ length: 20 }, (_, i) => `fp-${i + 1}`));
    expect(more).toBe(true);
  });

  it("keeps the findings holding every word, in any case, across title, file and line", () => {
    const list = [
      finding(1, "SQL injection in login", "src/auth.ts"),
      finding(2, "SQL injection in search", "src/search.ts"),
      finding(3, "Open redirect in login", "src/auth.ts"),
    ];
    expect(matchingFindings(list, "x", "sql AUTH").shown.map((f) => f.fingerprint)).toEqual(["fp-1"]);
    expect(matchingFindings(list, "x", "auth.ts:4").shown.map((f) => f.fingerprint)).toEqual(["fp-3"]);
    expect(matchingFindings(list, "fp-1", "login")).toEqual({ shown: [list[2]], more: false });
    expect(matchingFindings(list, "x", "nothing like it")).toEqual({ shown: [], more: false });
  });

  it("labels a finding by title, file and line", () => {
    expect(findingLabel({ title: "Weak hash", file: "a/b.ts", startLine: 7 })).toBe("Weak hash (a/b.ts:7)");
  });
});
