import { describe, expect, it } from "vitest";
import { modelFinding, readFrom } from "../reviewer/test-support.ts";
import { buildReport } from "./build.ts";
import { fingerprint } from "../../agent/index.ts";
import { rollupByFile } from "./rollup.ts";
import { type ModelReport, modelReportSchema, reportSchema } from "./schema.ts";

const db = [
  "import db from './db';",
  "",
  "export function getUser(id) {",
  "  return db.query(`SELECT * FROM users WHERE id = ${id}`);",
  "}",
].join("\n");
const util = [
  "export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));",
  "export function parse(s) { return JSON.parse(s); }",
].join("\n");
const tree = { "src/db.ts": db, "src/util.ts": util };

const sql = modelFinding({
  title: "SQL injection in getUser",
  file: "src/db.ts",
  start_line: 4,
  evidence: "db.query(`SELECT * FROM users WHERE id = ${id}`)",
  severity: "critical",
});
const parse = modelFinding({
  title: "Unchecked JSON.parse",
  file: "./src/util.ts",
  start_line: 9,
  evidence: "return JSON.parse(s);",
  severity: "medium",
  category: "reliability",
  confidence: 0.6,
});
const made = modelFinding({ title: "eval of user input", file: "src/util.ts", start_line: 1, evidence: "eval(input)" });
const ghost = modelFinding({ title: "Missing file", file: "src/nope.ts", start_line: 1, evidence: "anything" });
const escape = modelFinding({ title: "Escape", file: "../../etc/passwd", start_line: 1, evidence: "root" });

/** A model report with every score the model gives (the scores' own tests leave some out). */
const model = (
  findings: unknown[],
  scores: object = { overall_score: 60, category_scores: { security: 40, reliability: 70 } },
): ModelReport => modelReportSchema.parse({ summary: "s", ...scores, findings });

describe("buildReport", () => {
  it("checks every location, repairs or drops, and counts each stage", async () => {
    const reads: string[] = [];
    const report = await buildReport({
      model: model([sql, parse, made, ghost, escape]),
      readFile: async (p) => (reads.push(p), tree[p as keyof typeof tree] ?? null),
      settings: { verify: false },
      engineLabel: "test",
    });
    expect(reportSchema.parse(report)).toEqual(report);
    expect(report.stages).toMatchObject({ proposed: 5, droppedUnlocatable: 3, repairedLocation: 1, kept: 2 });
    expect(report.findings.map((f) => [f.title, f.file, f.startLine, f.endLine])).toEqual([
      ["SQL injection in getUser", "src/db.ts", 4, 4],
      ["Unchecked JSON.parse", "src/util.ts", 2, 2],
    ]);
    expect(reads).not.toContain("../../etc/passwd"); // a path leaving the snapshot is not even asked for
    expect(report.findings[1]!.evidence).toBe("export function parse(s) { return JSON.parse(s); }");
    expect(report.files).toEqual([
      { path: "src/db.ts", score: 60, counts: { critical: 1, high: 0, medium: 0, low: 0, info: 0 } },
      { path: "src/util.ts", score: 92, counts: { critical: 0, high: 0, medium: 1, low: 0, info: 0 } },
    ]);
    expect(report.stages).toMatchObject({
      droppedUnlocatable: 3,
      repairedLocation: 1,
      droppedDuplicate: 0,
      droppedDismissed: 0,
      droppedUnverified: 0,
    });
  });

  it("gives the same fingerprint when the code moved down and the model quoted less of it", async () => {
    const first = await buildReport({
      model: model([sql]),
      readFile: readFrom(tree),
      settings: { verify: false },
      engineLabel: "t",
    });
    const shifted = { ...tree, "src/db.ts": `// licence header\n\n\n${db.replace("  return", "    return")}` };
    const again = await buildReport({
      model: model([
        {
          ...sql,
          title: "Injection via string interpolation",
          start_line: 7,
          end_line: 7,
          evidence: "SELECT * FROM users WHERE id = ${id}",
        },
      ]),
      readFile: readFrom(shifted),
      settings: { verify: false },
      engineLabel: "t",
    });
    expect(again.findings[0]!.startLine).toBe(7);
    expect(again.findings[0]!.fingerprint).toBe(first.findings[0]!.fingerprint);
    // A different category on the same lines is a different finding.
    expect(fingerprint({ ...first.findings[0]!, category: "performance" })).not.toBe(first.findings[0]!.fingerprint);

    const dismissed = await buildReport({
      model: model([sql, parse]),
      readFile: readFrom(shifted),
      dismissed: [first.findings[0]!.fingerprint],
      settings: { verify: false },
      engineLabel: "t",
    });
    expect(dismissed.findings.map((f) => f.title)).toEqual(["Unchecked JSON.parse"]);
    expect(dismissed.stages.droppedDismissed).toBe(1);
  });

  it("static findings keep the rule that raised them; two rules on the same lines are one finding", async () => {
    const base = modelReportSchema.parse({ summary: "s", overall_score: 100, findings: [sql] }).findings[0]!;
    const report = await buildReport({
      model: {
        summary: "s",
        overall_score: 100,
        category_scores: {},
        findings: [
          { ...base, ruleId: "sql-template" },
          { ...base, ruleId: "no-unsafe-query" },
        ],
      },
      readFile: readFrom(tree),
      settings: { verify: false },
      engine: "static",
      engineLabel: "static",
    });
    expect(report.engine).toBe("static");
    expect(report.findings).toHaveLength(1);
    expect(report.findings[0]).toMatchObject({
      source: "static",
      ruleId: expect.stringMatching(/^(sql-template|no-unsafe-query)$/),
    });
    expect(report.stages.droppedDuplicate).toBe(1);
  });

  it("merges duplicates (worst severity, highest confidence) and applies the thresholds", async () => {
    const dup = { ...sql, title: "Same thing, worded differently", severity: "high", confidence: 0.99 };
    const low = modelFinding({
      title: "Sleep helper undocumented",
      file: "src/util.ts",
      start_line: 1,
      evidence: "export const sleep",
      severity: "info",
      category: "documentation",
      confidence: 0.9,
    });
    const report = await buildReport({
      model: model([dup, sql, parse, low]),
      readFile: readFrom(tree),
      settings: { verify: false, minConfidence: 0.7, minSeverity: "low" },
      engineLabel: "t",
    });
    expect(report.findings).toHaveLength(1);
    expect(report.findings[0]).toMatchObject({ severity: "critical", confidence: 0.99 });
    expect(report.stages).toMatchObject({
      proposed: 4,
      droppedDuplicate: 1,
      droppedBelowConfidence: 1,
      droppedBelowSeverity: 1,
      kept: 1,
    });
  });

  it("keeps confirmed findings, drops or marks the unconfirmed per setting, and never drops unverified-for-budget ones", async () => {
    const verify = async (findings: { fingerprint: string; title: string }[]) => ({
      results: new Map(
        findings.map((f) => [
          f.fingerprint,
          f.title.startsWith("SQL")
            ? { verdict: "confirmed" as const, note: "line 4 interpolates id" }
            : f.title.startsWith("Unchecked")
              ? { verdict: "rejected" as const, note: "caller catches" }
              : { verdict: "not_run" as const },
        ]),
      ),
      notes: ["verification stopped: the budget is spent"],
    });
    const timeout = modelFinding({
      title: "No timeout",
      file: "src/util.ts",
      start_line: 1,
      evidence: "setTimeout(r, ms)",
      category: "reliability",
    });
    const dropped = await buildReport({
      model: model([sql, parse, timeout]),
      readFile: readFrom(tree),
      settings: { verify: true, unverified: "drop" },
      verify,
      engineLabel: "t",
    });
    expect(dropped.findings.map((f) => [f.title, f.verification, f.verificationNote])).toEqual([
      ["SQL injection in getUser", "confirmed", "line 4 interpolates id"],
      ["No timeout", "not_run", undefined],
    ]);
    expect(dropped.stages.droppedUnverified).toBe(1);
    expect(dropped.notes).toEqual([
      "verification stopped: the budget is spent",
      'verification did not run for 1 finding(s); they are kept and marked "not_run"',
    ]);

    const kept = await buildReport({
      model: model([sql, parse]),
      readFile: readFrom(tree),
      settings: { verify: true, unverified: "keep" },
      verify,
      engineLabel: "t",
    });
    expect(kept.findings.map((f) => f.verification)).toEqual(["confirmed", "unverified"]);
    expect(kept.stages.droppedUnverified).toBe(0);
  });

  it("rolls up per file, worst first", () => {
    const rows = rollupByFile([
      { file: "a.ts", severity: "low" },
      { file: "b.ts", severity: "high" },
      { file: "b.ts", severity: "high" },
      { file: "b.ts", severity: "critical" },
      { file: "b.ts", severity: "critical" },
      { file: "b.ts", severity: "critical" },
    ]);
    expect(rows.map((r) => [r.path, r.score])).toEqual([
      ["b.ts", 0],
      ["a.ts", 97],
    ]);
  });
});

describe("scores the model left out", () => {
  const build = (scores: object, findings: unknown[] = [sql, parse]) =>
    buildReport({
      model: model(findings, scores),
      readFile: readFrom(tree),
      settings: { verify: false },
      engineLabel: "t",
    });

  it("keeps the model's scores, and adds no note, when it gave them all", async () => {
    const report = await build({ overall_score: 55, category_scores: { security: 30, reliability: 80, style: 90 } });
    expect(report).toMatchObject({ overallScore: 55, categoryScores: { security: 30, reliability: 80, style: 90 } });
    expect(report.computedScores).toBeUndefined();
    expect(report.notes).toEqual([]);
  });

  it("computes every score from the kept findings when the REPORT has none, and says so", async () => {
    // A critical security finding (weight 40) and a medium reliability one (8); the invented one is
    // dropped before scoring, so it costs nothing.
    const report = await build({}, [sql, parse, made]);
    expect(report.stages.kept).toBe(2);
    expect(report.overallScore).toBe(Math.round(100 * Math.exp(-0.48))); // 62
    expect(report.categoryScores).toEqual({
      security: Math.round(100 * Math.exp(-0.4)),
      reliability: Math.round(100 * Math.exp(-0.08)),
    });
    expect(report.computedScores).toEqual(["overall", "security", "reliability"]);
    expect(report.notes).toEqual([
      "Scores computed by Argus, as the model's report gave none: overall, security, reliability. Formula: 100 · e^(−Σ severity weight / 100) over the findings, weights critical 40, high 20, medium 8, low 3, info 1.",
    ]);
    expect(reportSchema.parse(report)).toEqual(report);
  });

  it("fills in only what is missing: null is no score (not 0), a scored category keeps its score", async () => {
    const report = await build({ overall_score: null, category_scores: { security: "35", reliability: null } });
    expect(report.overallScore).toBe(62);
    expect(report.categoryScores).toEqual({ security: 35, reliability: 92 });
    expect(report.computedScores).toEqual(["overall", "reliability"]);

    const onlyCategories = await build({ overall_score: 70 });
    expect(onlyCategories).toMatchObject({ overallScore: 70, computedScores: ["security", "reliability"] });
  });

  it("a report without findings or scores reads 100 overall and names no category", async () => {
    const report = await build({}, []);
    expect(report).toMatchObject({ overallScore: 100, categoryScores: {}, computedScores: ["overall"] });
  });

  it("the static engine's scores are all Argus's: computed, with no note", async () => {
    const report = await buildReport({
      model: { summary: "s", findings: model([sql]).findings },
      engine: "static",
      readFile: readFrom(tree),
      engineLabel: "static",
    });
    expect(report).toMatchObject({ overallScore: 67, categoryScores: { security: 67 }, notes: [] });
    expect(report.computedScores).toBeUndefined();
  });
});
