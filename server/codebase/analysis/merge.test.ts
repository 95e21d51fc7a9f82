import { describe, expect, it } from "vitest";
import { describeMerge, mergeFindings, withAlsoReported } from "./merge.ts";
import type { Finding } from "./types.ts";
import { weaknessOf } from "./weakness.ts";

function f(over: Partial<Finding> & Pick<Finding, "tool" | "ruleId">): Finding {
  return {
    severity: "medium",
    confidence: 0.5,
    file: "app.py",
    startLine: 10,
    endLine: 10,
    message: `${over.tool} says so`,
    ...over,
  };
}

const taint = f({
  tool: "argus",
  ruleId: "injection/command",
  severity: "low",
  confidence: 0.55,
  message:
    "an environment variable is run as a command by os.system(); flow: os.environ (line 9) → os.system() (line 10)",
  trace: [
    { file: "app.py", line: 9, label: "os.environ" },
    { file: "app.py", line: 10, label: "os.system()" },
  ],
});
const complete = { taintComplete: new Set(["app.py"]) };
const where = (r: { findings: Finding[] }) => r.findings.map((x) => `${x.tool}:${x.ruleId}:${x.startLine}`);

describe("one finding per location and weakness", () => {
  it("another tool's finding of the same weakness on overlapping lines folds into Argus's, which names it", () => {
    const bandit = f({ tool: "bandit", ruleId: "B605", severity: "high", confidence: 0.8, startLine: 10, endLine: 11 });
    const ruff = f({ tool: "ruff", ruleId: "S605", severity: "high", confidence: 0.6 });
    const r = mergeFindings([bandit, ruff, taint], complete);
    expect(where(r)).toEqual(["argus:injection/command:10"]);
    const [one] = r.findings;
    // The trace stays; the severity is the taint engine's (the data comes from the environment); the
    // confidence is the surest of the three.
    expect(one).toMatchObject({ severity: "low", confidence: 0.8, trace: taint.trace });
    expect(one!.message).toBe(
      "an environment variable is run as a command by os.system() (also reported by bandit B605, ruff S605); flow: os.environ (line 9) → os.system() (line 10)",
    );
    expect(r.counts).toEqual({
      bandit: { merged: 1, noFlow: 0, importOnly: 0 },
      ruff: { merged: 1, noFlow: 0, importOnly: 0 },
    });
  });

  it("without an Argus finding, the surest other tool's stays and takes the worst severity", () => {
    const r = mergeFindings(
      [
        f({ tool: "ruff", ruleId: "S501", severity: "high", confidence: 0.5 }),
        f({ tool: "bandit", ruleId: "B501", severity: "medium", confidence: 0.8 }),
      ],
      complete,
    );
    expect(where(r)).toEqual(["bandit:B501:10"]);
    expect(r.findings[0]).toMatchObject({ severity: "high", message: "bandit says so (also reported by ruff S501)" });
  });

  it("different weaknesses, different places and a tool's own findings stay apart", () => {
    const r = mergeFindings(
      [
        taint,
        f({ tool: "bandit", ruleId: "B608", startLine: 10 }), // SQL, not a command
        f({ tool: "bandit", ruleId: "B605", startLine: 12, endLine: 12, file: "other.py" }),
        f({ tool: "argus", ruleId: "injection/command", startLine: 10, message: "a second sink on the line" }),
        f({ tool: "bandit", ruleId: "B101", startLine: 10 }), // not mapped: kept as bandit says
      ],
      { taintComplete: new Set() },
    );
    expect(where(r).sort()).toEqual([
      "argus:injection/command:10",
      "argus:injection/command:10",
      "bandit:B101:10",
      "bandit:B605:12",
      "bandit:B608:10",
    ]);
  });

  it("a data-flow check where the taint engine analysed the file and found nothing is left out; elsewhere kept", () => {
    const sql = f({ tool: "bandit", ruleId: "B608", file: "app.py" });
    const lint = f({ tool: "eslint", ruleId: "security/detect-non-literal-fs-filename", file: "web.js" });
    const analysed = mergeFindings([sql, lint], { taintComplete: new Set(["app.py", "web.js"]) });
    expect(analysed.findings).toEqual([]);
    expect(analysed.counts.bandit).toEqual({ merged: 0, noFlow: 1, importOnly: 0 });
    expect(analysed.counts.eslint).toEqual({ merged: 0, noFlow: 1, importOnly: 0 });
    // The taint analysis of the file stopped early (or there is none): bandit's word stands.
    expect(where(mergeFindings([sql, lint], { taintComplete: new Set() }))).toEqual([
      "bandit:B608:10",
      "eslint:security/detect-non-literal-fs-filename:10",
    ]);
  });

  it("a check of a setting stays even where no untrusted data flows (autoescape off, verify=False)", () => {
    const r = mergeFindings(
      [f({ tool: "bandit", ruleId: "B701" }), f({ tool: "bandit", ruleId: "B501", startLine: 20, endLine: 20 })],
      complete,
    );
    expect(where(r)).toEqual(["bandit:B701:10", "bandit:B501:20"]);
  });

  it("import-only notices are left out; the use is checked at the call", () => {
    const r = mergeFindings(
      [f({ tool: "bandit", ruleId: "B403", startLine: 1 }), f({ tool: "ruff", ruleId: "S404", startLine: 2 })],
      complete,
    );
    expect(r.findings).toEqual([]);
    expect(describeMerge(r.counts.bandit)).toBe("1 import-only notice left out");
    expect(describeMerge(undefined)).toBeNull();
  });

  it("a hard-coded secret found by Argus and by bandit is one finding", () => {
    const r = mergeFindings(
      [
        f({ tool: "bandit", ruleId: "B105", startLine: 4, endLine: 4 }),
        f({
          tool: "argus",
          ruleId: "secrets/connection-string",
          startLine: 4,
          endLine: 4,
          message: "hard-coded password",
        }),
      ],
      complete,
    );
    expect(where(r)).toEqual(["argus:secrets/connection-string:4"]);
  });
});

describe("the weakness of a rule", () => {
  it("maps bandit ids, ruff's S codes (the same numbers) and ESLint's security rules to Argus's weaknesses", () => {
    expect(weaknessOf({ tool: "bandit", ruleId: "B608" })).toEqual({ weakness: "injection/sql", flow: true });
    expect(weaknessOf({ tool: "ruff", ruleId: "S608" })).toEqual({ weakness: "injection/sql", flow: true });
    expect(weaknessOf({ tool: "ruff", ruleId: "F401" })).toEqual({ weakness: null, flow: false });
    expect(weaknessOf({ tool: "eslint", ruleId: "security/detect-child-process" })).toEqual({
      weakness: "injection/command",
      flow: true,
    });
    expect(weaknessOf({ tool: "argus", ruleId: "secrets/aws-access-key" }).weakness).toBe("secrets");
    expect(weaknessOf({ tool: "bandit", ruleId: "B404" }).importOnly).toBe(true);
    expect(weaknessOf({ tool: "shellcheck", ruleId: "SC2086" }).weakness).toBeNull();
  });

  it("puts the note of other tools before the trace", () => {
    expect(withAlsoReported("x; flow: a (line 1)", ["bandit B602"])).toBe(
      "x (also reported by bandit B602); flow: a (line 1)",
    );
    expect(withAlsoReported("x", [])).toBe("x");
  });
});
