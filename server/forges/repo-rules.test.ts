/** `.argus.yaml`: the rules it sets, and every way it can be wrong reported with its line. */
import { describe, expect, it } from "vitest";
import { DEFAULT_RULES, parseRepoRules } from "./repo-rules.ts";

describe(".argus.yaml", () => {
  it("reads ignore paths, the severity floor, the failing severity and the inline cap", () => {
    const read = parseRepoRules(
      "ignore:\n  - vendor/**\n  - docs/\nmin_severity: low\nfail_on: high\nmax_inline_comments: 5\n",
    );
    expect(read).toEqual({
      rules: {
        ...DEFAULT_RULES,
        ignore: ["vendor/**", "docs/"],
        minSeverity: "low",
        failOn: "high",
        failOnSet: true,
        inlineCap: 5,
      },
      problems: [],
    });
  });

  it("reads min_confidence (0–1) and refuses one outside it with its line", () => {
    expect(parseRepoRules("min_confidence: 0.6\n")).toEqual({
      rules: { ...DEFAULT_RULES, minConfidence: 0.6 },
      problems: [],
    });
    const wrong = parseRepoRules("fail_on: high\nmin_confidence: 60\n");
    expect(wrong.rules).toEqual(DEFAULT_RULES);
    expect(wrong.problems[0]).toMatch(/^\.argus\.yaml line 2: min_confidence: /);
  });

  it("an empty file is the defaults", () => {
    expect(parseRepoRules("")).toEqual({ rules: DEFAULT_RULES, problems: [] });
  });

  it("reports a wrong value with its line and applies the defaults", () => {
    const read = parseRepoRules("ignore: [vendor]\n\nfail_on: severe\n");
    expect(read.rules).toEqual(DEFAULT_RULES);
    expect(read.problems).toHaveLength(1);
    expect(read.problems[0]).toMatch(/^\.argus\.yaml line 3: fail_on: /);
  });

  it("reports an unknown key and a YAML syntax error with their lines", () => {
    expect(parseRepoRules("ignore: []\nfail-on: high\n").problems[0]).toMatch(
      /^\.argus\.yaml line 1: the file: .*fail-on/,
    );
    const syntax = parseRepoRules("ignore:\n  - a\n bad: [\n");
    expect(syntax.rules).toEqual(DEFAULT_RULES);
    expect(syntax.problems[0]).toMatch(/^\.argus\.yaml line \d+: /);
  });

  it("refuses an alias bomb instead of expanding it", () => {
    const bomb = [
      "a: &a [x, x, x, x, x, x, x, x, x]",
      ...Array.from(
        { length: 8 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`,
      ),
    ].join("\n");
    const read = parseRepoRules(bomb);
    expect(read.rules).toEqual(DEFAULT_RULES);
    expect(read.problems.length).toBeGreaterThan(0);
  });
});
