/**
 * What a PR review posts, decided without a forge: the lines that can take a comment (diff-lines),
 * a finding's fix as a suggestion block (suggestion), and the plan — inline on added lines only, the
 * cap, nothing twice, fixed findings, the check's conclusion.
 */
import { describe, expect, it } from "vitest";
import { anchorFor, fileLines } from "./diff-lines.ts";
import { planReview, type PlanFinding, type PlanInput } from "./plan.ts";
import { suggestionBlock, suggestionFor } from "./suggestion.ts";
import { rateLimitWaitMs } from "./github/rate-limit.ts";

// New file side: 1 a, 2 b (added), 3 c, 4 d, 5 e (added), 6 f — lines 10… are a second hunk.
const PATCH = [
  "@@ -1,4 +1,6 @@",
  " a",
  "+b",
  " c",
  " d",
  "-old",
  "+e",
  "+f",
  "@@ -20,2 +22,3 @@",
  " x",
  "+y",
  " z",
].join("\n");

describe("diff lines", () => {
  it("knows the added lines and each hunk's new-side range", () => {
    const lines = fileLines(PATCH);
    expect([...lines.added].sort((a, b) => a - b)).toEqual([2, 5, 6, 23]);
    expect(lines.hunks).toEqual([
      [1, 6],
      [22, 24],
    ]);
  });

  it("anchors a finding on its whole range inside one hunk, else on its first added line, else nowhere", () => {
    const lines = fileLines(PATCH);
    expect(anchorFor(lines, 2, 3)).toEqual({ startLine: 2, line: 3, wholeRange: true });
    expect(anchorFor(lines, 5, 23)).toEqual({ startLine: 5, line: 5, wholeRange: false });
    expect(anchorFor(lines, 3, 4)).toBeNull(); // context lines only: the PR did not write them
    expect(anchorFor(lines, 40, 41)).toBeNull();
    expect(anchorFor(undefined, 2, 2)).toBeNull();
  });
});

const SOURCE = ["def f(x):", "    return eval(x)", "", "print(f('1'))", ""].join("\n");
const FIX = [
  "--- a/f.py",
  "+++ b/f.py",
  "@@ -1,2 +1,2 @@",
  " def f(x):",
  "-    return eval(x)",
  "+    return int(x)",
  "",
].join("\n");

describe("suggestions", () => {
  it("turns a finding's diff into the new text of its own lines", () => {
    expect(suggestionFor(SOURCE, { startLine: 2, endLine: 2, diff: FIX })).toBe("    return int(x)");
  });

  it("gives none when the diff does not apply or changes lines outside the finding", () => {
    expect(suggestionFor(SOURCE, { startLine: 2, endLine: 2, diff: null })).toBeNull();
    expect(suggestionFor(SOURCE.replace("eval", "exec"), { startLine: 2, endLine: 2, diff: FIX })).toBeNull();
    expect(suggestionFor(SOURCE, { startLine: 4, endLine: 4, diff: FIX })).toBeNull();
  });

  it("fences the block longer than any backtick run inside", () => {
    expect(suggestionBlock("a = `x`")).toBe("```suggestion\na = `x`\n```");
    expect(suggestionBlock("s = '````'")).toBe("`````suggestion\ns = '````'\n`````");
  });
});

const finding = (over: Partial<PlanFinding>): PlanFinding => ({
  fingerprint: "fp",
  title: "t",
  severity: "medium",
  confidence: 0.9,
  file: "f.py",
  startLine: 2,
  endLine: 2,
  explanation: "why",
  suggestedFix: null,
  diff: null,
  ...over,
});

function input(over: Partial<PlanInput>): PlanInput {
  return {
    findings: [],
    lines: new Map([["f.py", fileLines("@@ -1,1 +1,4 @@\n def f(x):\n+    return eval(x)\n+\n+print(f('1'))")]]),
    posted: new Map(),
    reviewedFiles: new Set(["f.py"]),
    readFile: () => SOURCE,
    headSha: "abcdef1234567",
    inlineCap: 20,
    failOn: null,
    roomUrl: "https://argus.example/reviews/r",
    ...over,
  };
}

describe("the review plan", () => {
  it("puts a finding with a concrete fix inline with a suggestion block, one without in the summary", () => {
    const plan = planReview(
      input({ findings: [finding({ fingerprint: "a", diff: FIX }), finding({ fingerprint: "b", file: "other.py" })] }),
    );
    expect(plan.comments).toHaveLength(1);
    expect(plan.comments[0]).toMatchObject({ fingerprint: "a", path: "f.py", line: 2 });
    expect(plan.comments[0]!.body).toContain("```suggestion\n    return int(x)\n```");
    expect(plan.inSummary.map((f) => f.fingerprint)).toEqual(["b"]);
    expect(plan.summary).toContain("`other.py:2`");
    expect(plan.check.conclusion).toBe("neutral");
  });

  it("caps inline comments (most severe first) and never posts a finding twice", () => {
    const findings = [
      finding({ fingerprint: "low", severity: "low", startLine: 3, endLine: 3 }),
      finding({ fingerprint: "crit", severity: "critical", startLine: 4, endLine: 4 }),
      finding({ fingerprint: "old", severity: "high" }),
    ];
    const plan = planReview(input({ findings, inlineCap: 1, posted: new Map([["old", "f.py"]]) }));
    expect(plan.comments.map((c) => c.fingerprint)).toEqual(["crit"]);
    expect(plan.inSummary.map((f) => f.fingerprint)).toEqual(["low"]);
    expect(plan.fixed).toEqual([]);
  });

  it("calls fixed only the open findings of reviewed files that are no longer raised", () => {
    const plan = planReview(
      input({
        findings: [],
        posted: new Map([
          ["gone", "f.py"],
          ["elsewhere", "not-reviewed.py"],
        ]),
      }),
    );
    expect(plan.fixed).toEqual(["gone"]);
  });

  it("posts no finding under min_confidence, inline or in the list: the summary only counts it", () => {
    const findings = [
      finding({ fingerprint: "sure", confidence: 0.9, title: "eval of input" }),
      finding({ fingerprint: "unsure", confidence: 0.4, startLine: 3, endLine: 3, title: "maybe unused" }),
      finding({ fingerprint: "unsure-off-diff", confidence: 0.3, file: "other.py", title: "maybe slow" }),
    ];
    const plan = planReview(input({ findings, minConfidence: 0.6 }));
    expect(plan.comments.map((c) => c.fingerprint)).toEqual(["sure"]);
    expect(plan.inSummary).toEqual([]);
    expect(plan.summary).not.toMatch(/maybe unused|maybe slow/);
    expect(plan.summary).toContain("**3 findings**");
    expect(plan.summary).toContain("2 findings under the confidence floor (0.6, .argus.yaml min_confidence)");
    // Without the key every finding is posted as before.
    const all = planReview(input({ findings }));
    expect(all.comments.map((c) => c.fingerprint)).toEqual(["sure", "unsure"]);
    expect(all.inSummary.map((f) => f.fingerprint)).toEqual(["unsure-off-diff"]);
  });

  it("fails the check only at the configured severity", () => {
    const findings = [finding({ severity: "high" })];
    expect(planReview(input({ findings, failOn: "critical" })).check.conclusion).toBe("success");
    expect(planReview(input({ findings, failOn: "high" })).check.conclusion).toBe("failure");
  });
});

describe("rate limits", () => {
  const err = (status: number, headers: Record<string, string>) => ({ status, response: { headers } });
  it("waits as GitHub says: retry-after, the primary limit's reset, a minute for a bare 429", () => {
    expect(rateLimitWaitMs(err(429, { "retry-after": "3" }))).toBe(3000);
    expect(rateLimitWaitMs(err(403, { "retry-after": "1" }))).toBe(1000);
    expect(rateLimitWaitMs(err(403, { "x-ratelimit-remaining": "0", "x-ratelimit-reset": "110" }), 100_000)).toBe(
      10_000,
    );
    expect(rateLimitWaitMs(err(429, {}))).toBe(60_000);
  });
  it("does not treat other errors as rate limits", () => {
    expect(rateLimitWaitMs(err(403, {}))).toBeNull();
    expect(rateLimitWaitMs(err(404, { "retry-after": "1" }))).toBeNull();
    expect(rateLimitWaitMs(new Error("boom"))).toBeNull();
  });
});
