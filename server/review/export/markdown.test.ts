import { describe, expect, it } from "vitest";
import { describeStages, emptyStageCounts } from "../../shared/stages.ts";
import { toMarkdown } from "./markdown.ts";
import { sampleFinding, sampleInput, sampleTaintFinding } from "./testing.ts";

describe("Markdown export", () => {
  const md = toMarkdown(sampleInput({ dismissed: ["fp-html"] }));

  it("has the header, summary, scores, worst findings first with file:line, and files at risk", () => {
    expect(md).toMatch(/^# Argus review — Payments API \(prod\) ✓\n/);
    expect(md).toContain("| Engine | anthropic / claude-sonnet-4-6 |");
    expect(md).toContain("| Overall score | **41** / 100 |");
    expect(md).toContain("| Usage | 120,000 input / 8,000 output tokens · $0.4800 |");
    expect(md).toContain("| security | 20 |");
    expect(md).toContain("## Findings (2)");
    expect(md.indexOf("[CRITICAL] AWS access key")).toBeLessThan(md.indexOf("[HIGH] SQL built"));
    expect(md).toContain("`src/db/users.ts:12-13` · security · confidence 0.90 · verified");
    expect(md).toContain("rule `secrets/aws-access-key`");
    expect(md).toContain("```diff\n--- a/src/db/users.ts");
    expect(md).toContain("| `config/my settings#1.py` | 60 | 1 | 0 | 0 | 0 | 0 |");
  });

  it("lists false positives apart from the findings", () => {
    expect(md).toContain("## Marked false positive (1)");
    expect(md).toMatch(/- \[LOW\] .*naming is \| inconsistent — `src\/util.ts:1`/);
    expect(md).not.toContain("### 3.");
  });

  it("says what each noise-control stage removed", () => {
    expect(md).toContain(
      "Noise control: 7 proposed · 1 location repaired · 2 dropped (location) · 1 duplicates merged · 1 unverified removed · 3 kept.",
    );
    expect(describeStages(emptyStageCounts())).toBe("0 proposed · 0 kept");
  });

  it("neutralises raw HTML from the model and cannot be broken out of by backticks in quoted code", () => {
    const all = toMarkdown(sampleInput());
    expect(all).not.toMatch(/<(script|iframe|img)/i);
    expect(all).toContain("&lt;iframe src=javascript:alert(1)&gt;");
    // The evidence starts with ``` — its fence must be longer.
    expect(all).toContain("````ts\n```\nlet x = 1;\n````");
  });

  it("says so when there is nothing to report", () => {
    const empty = toMarkdown(sampleInput({ findings: [] }));
    expect(empty).toContain("## Findings (0)");
    expect(empty).toContain("_No findings._");
  });

  it("renders a diff scope and a finding on one line", () => {
    const out = toMarkdown(
      sampleInput({
        findings: [sampleFinding({ startLine: 5, endLine: 5 })],
        review: { scope: { kind: "diff", base: "main", head: "feature/x" } },
      }),
    );
    expect(out).toContain("| Scope | diff main..feature/x |");
    expect(out).toContain("`src/db/users.ts:5`");
  });

  it("shows a taint finding's data flow as a numbered path, source to sink, after its evidence", () => {
    const out = toMarkdown(sampleInput({ findings: [sampleTaintFinding(), sampleFinding({ fingerprint: "x" })] }));
    expect(out).toContain(
      [
        "**Data flow:**",
        "",
        "1. `src/routes/users.ts:7` — `req.query.id` (source)",
        "2. `src/routes/users.ts:7` — `id = …`",
        "3. `src/routes/users.ts:8` — `findUser(id)`",
        "4. `src/db/users.ts:4` — `db.query()` (sink)",
      ].join("\n"),
    );
    expect(out.indexOf("WHERE id = ${id}")).toBeLessThan(out.indexOf("**Data flow:**"));
    // Only the finding with a trace has a path.
    expect(out.match(/\*\*Data flow:\*\*/g)).toHaveLength(1);
  });

  it("a label with backticks cannot break out of its code span", () => {
    const out = toMarkdown(
      sampleInput({
        findings: [sampleTaintFinding({ trace: [{ file: "a.js", line: 1, label: "x`<img src=y>`" }] })],
      }),
    );
    expect(out).toContain("1. `a.js:1` — `` x`<img src=y>` `` (source)");
  });
});
