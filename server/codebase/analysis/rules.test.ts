import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runFilePass } from "../symbols/pass.ts";
import { listFiles, materializeFixture } from "../symbols/testing.ts";
import { entropy } from "./rules/secrets.ts";
import { calibratedConfidence } from "./taint/report.ts";
import type { Finding } from "./types.ts";

const FIXTURES = fileURLToPath(new URL("../../../test/fixtures/codebase/analysis", import.meta.url));

/** Injection is split by kind (command, SQL, template, code); other families by their first segment. */
const familyOf = (ruleId: string) =>
  ruleId.startsWith("injection/") ? ruleId.split("/").slice(0, 2).join("/") : ruleId.split("/")[0]!;

const MARKER = /(?:\/\/|#)\s*expect:\s*([\w/-]+)/;

let root: string;
let cleanup: () => void;
let findings: Finding[];
const expected: { file: string; line: number; rule: string }[] = [];

beforeAll(async () => {
  ({ root, cleanup } = materializeFixture(FIXTURES, "src"));
  findings = [];
  for (const file of listFiles(root)) {
    findings.push(...(await runFilePass(file, { root, rules: true })).findings);
    readFileSync(path.join(root, file.path), "utf8")
      .split("\n")
      .forEach((text, i) => {
        const m = MARKER.exec(text);
        if (m) expected.push({ file: file.path, line: i + 1, rule: m[1]! });
      });
  }
}, 60_000);

afterAll(() => cleanup?.());

describe("Argus rules on the fixtures", () => {
  it("reach the precision and recall floors, per family and overall", () => {
    const stats = new Map<string, { tp: number; fp: number; fn: number }>();
    const bump = (family: string, key: "tp" | "fp" | "fn") => {
      const s = stats.get(family) ?? { tp: 0, fp: 0, fn: 0 };
      s[key]++;
      stats.set(family, s);
    };
    const matched = new Set<Finding>();
    for (const e of expected) {
      const hit = findings.find(
        (f) =>
          f.file === e.file &&
          f.startLine <= e.line &&
          e.line <= f.endLine &&
          (f.ruleId === e.rule || f.ruleId.startsWith(`${e.rule}/`)),
      );
      if (hit) matched.add(hit);
      bump(familyOf(hit?.ruleId ?? e.rule), hit ? "tp" : "fn");
    }
    // Several findings on one expected line (e.g. a JS rule and the text rule) are one true positive.
    const onExpectedLine = (f: Finding) =>
      expected.some((e) => e.file === f.file && f.startLine <= e.line && e.line <= f.endLine);
    for (const f of findings) if (!matched.has(f) && !onExpectedLine(f)) bump(familyOf(f.ruleId), "fp");

    const rows = [...stats.entries()].sort(([a], [b]) => a.localeCompare(b));
    const pct = (n: number, d: number) => (d === 0 ? 1 : n / d);
    const total = rows.reduce((acc, [, s]) => ({ tp: acc.tp + s.tp, fp: acc.fp + s.fp, fn: acc.fn + s.fn }), {
      tp: 0,
      fp: 0,
      fn: 0,
    });
    const table = [...rows, ["ALL", total] as const].map(([family, s]) => ({
      family,
      tp: s.tp,
      fp: s.fp,
      fn: s.fn,
      precision: pct(s.tp, s.tp + s.fp).toFixed(2),
      recall: pct(s.tp, s.tp + s.fn).toFixed(2),
    }));
    console.table(table);
    const misses = expected.filter(
      (e) =>
        !findings.some(
          (f) =>
            f.file === e.file &&
            f.startLine <= e.line &&
            e.line <= f.endLine &&
            (f.ruleId === e.rule || f.ruleId.startsWith(`${e.rule}/`)),
        ),
    );
    const falsePositives = findings.filter((f) => !onExpectedLine(f));
    if (misses.length || falsePositives.length)
      console.log({ misses, falsePositives: falsePositives.map((f) => `${f.file}:${f.startLine} ${f.ruleId}`) });

    expect(expected.length).toBeGreaterThanOrEqual(80);
    expect(pct(total.tp, total.tp + total.fn)).toBeGreaterThanOrEqual(0.9);
    expect(pct(total.tp, total.tp + total.fp)).toBeGreaterThanOrEqual(0.9);
    for (const [family, s] of rows) {
      expect({ family, recall: pct(s.tp, s.tp + s.fn) >= 0.75 }).toEqual({ family, recall: true });
      expect({ family, precision: pct(s.tp, s.tp + s.fp) >= 0.75 }).toEqual({ family, precision: true });
    }
  });

  it("every finding is well-formed", () => {
    for (const f of findings) {
      expect(f.tool).toBe("argus");
      expect(["critical", "high", "medium", "low", "info"]).toContain(f.severity);
      expect(f.confidence).toBeGreaterThan(0);
      expect(f.confidence).toBeLessThanOrEqual(1);
      expect(f.endLine).toBeGreaterThanOrEqual(f.startLine);
      expect(f.message.length).toBeGreaterThan(10);
    }
  });

  it("never puts the secret itself in a message", () => {
    const source = readFileSync(path.join(root, "src/secrets.ts"), "utf8");
    const literals = [...source.matchAll(/"([^"\s]{16,})"/g)].map((m) => m[1]!);
    for (const f of findings.filter((x) => x.ruleId.startsWith("secrets/")))
      for (const literal of literals) expect(f.message).not.toContain(literal);
  });

  it("reports a real-looking key in a test file one severity lower; never the documentation key", () => {
    const inTest = findings.filter((f) => f.file === "src/keys.test.js");
    expect(inTest).toHaveLength(1);
    expect(inTest[0]).toMatchObject({
      ruleId: "secrets/aws-access-key",
      severity: "high",
      confidence: 0.54,
      message: expect.stringContaining("(in a test file)"),
    });
    expect(findings.find((f) => f.file === "src/secrets.ts" && f.ruleId === "secrets/aws-access-key")).toMatchObject({
      severity: "critical",
      confidence: 0.9,
    });
  });

  it("rates request input by its rule's measured precision, used directly or passed along a longer path", () => {
    const lines = readFileSync(path.join(root, "src/app.js"), "utf8").split("\n");
    const lineOf = (needle: string) => lines.findIndex((l) => l.includes(needle)) + 1;
    const direct = findings.find(
      (f) => f.file === "src/app.js" && f.startLine === lineOf('exec("ping -c 1 " + req.query.host'),
    )!;
    const viaVariable = findings.find(
      (f) => f.file === "src/app.js" && f.startLine === lineOf("execSync(`ls -la ${dir}`)"),
    )!;
    // The taint engine follows the variable, so both are request input (critical), and both carry the
    // rule's precision measured on the suites (taint/calibration.ts), not a guess from the path's length.
    const measured = calibratedConfidence("injection/command", "request");
    expect(direct).toMatchObject({ ruleId: "injection/command", severity: "critical", confidence: measured });
    expect(viaVariable).toMatchObject({ ruleId: "injection/command", severity: "critical", confidence: measured });
    expect(viaVariable.trace?.map((s) => s.line)).toEqual([
      lineOf("const dir = req.body.dir"),
      lineOf("const dir = req.body.dir"),
      lineOf("execSync(`ls -la ${dir}`)"),
    ]);
  });

  it("an argus-ignore comment suppresses the finding on its line", () => {
    const line =
      readFileSync(path.join(root, "src/app.js"), "utf8")
        .split("\n")
        .findIndex((l) => l.includes("argus-ignore")) + 1;
    expect(line).toBeGreaterThan(0);
    expect(findings.filter((f) => f.file === "src/app.js" && f.startLine === line)).toEqual([]);
  });

  it("entropy separates keys from words", () => {
    expect(entropy("aaaaaaaaaaaaaaaa")).toBe(0);
    expect(entropy("password")).toBeLessThan(3);
    expect(entropy("q7Vt2LmZ9xWp4RkN8sYb")).toBeGreaterThan(4);
  });
});
