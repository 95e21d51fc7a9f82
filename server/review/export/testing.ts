/** A sample review and report for the export tests (static and agent findings, a hostile title, a diff). */
import type { Finding, Report } from "../report/schema.ts";
import type { ExportInput, ExportReview } from "./types.ts";

export function sampleFinding(over: Partial<Finding> = {}): Finding {
  return {
    fingerprint: "fp-sql",
    title: "SQL built from request input",
    severity: "high",
    confidence: 0.9,
    category: "security",
    file: "src/db/users.ts",
    startLine: 12,
    endLine: 13,
    evidence: "const q = `SELECT * FROM users WHERE id = ${req.query.id}`;\ndb.query(q);",
    explanation: "The id from the query string is pasted into the SQL text.",
    suggestedFix: "Use a placeholder and pass the id as a bound value.",
    diff: "--- a/src/db/users.ts\n+++ b/src/db/users.ts\n@@ -12,2 +12,1 @@\n-const q = `SELECT * FROM users WHERE id = ${req.query.id}`;\n-db.query(q);\n+db.query('SELECT * FROM users WHERE id = $1', [req.query.id]);\n",
    verification: "confirmed",
    verificationNote: "Line 12 interpolates req.query.id.",
    source: "agent",
    ...over,
  };
}

export function sampleInput(
  over: { findings?: Finding[]; dismissed?: string[]; review?: Partial<ExportReview>; report?: Partial<Report> } = {},
): ExportInput {
  const findings = over.findings ?? [
    sampleFinding(),
    sampleFinding({
      fingerprint: "fp-aws",
      title: "AWS access key in source",
      severity: "critical",
      confidence: 1,
      file: "config/my settings#1.py",
      startLine: 3,
      endLine: 3,
      evidence: 'AWS_KEY = "AKIAIOSFODNN7EXAMPLE"',
      explanation: "A hard-coded AWS access key id. (argus secrets/aws-access-key)",
      diff: undefined,
      verification: "not_run",
      verificationNote: undefined,
      source: "static",
      ruleId: "secrets/aws-access-key",
    }),
    sampleFinding({
      fingerprint: "fp-html",
      title: "<img src=x onerror=alert(1)> naming is | inconsistent",
      severity: "low",
      confidence: 0.4,
      category: "maintainability",
      file: "src/util.ts",
      startLine: 1,
      endLine: 1,
      evidence: "```\nlet x = 1;",
      explanation: "Names mix styles.\n<script>alert(1)</script>",
      suggestedFix: undefined,
      diff: undefined,
      verification: "unverified",
    }),
  ];
  const report: Report = {
    engine: "agent",
    engineLabel: "anthropic / claude-sonnet-4-6",
    summary: "Two **security** problems and one style nit.\n\n<iframe src=javascript:alert(1)>",
    overallScore: 41,
    categoryScores: { security: 20, maintainability: 85 },
    findings,
    files: [
      { path: "config/my settings#1.py", score: 60, counts: { critical: 1, high: 0, medium: 0, low: 0, info: 0 } },
      { path: "src/db/users.ts", score: 80, counts: { critical: 0, high: 1, medium: 0, low: 0, info: 0 } },
    ],
    stages: {
      proposed: 7,
      droppedUnlocatable: 2,
      repairedLocation: 1,
      droppedDuplicate: 1,
      droppedDismissed: 0,
      droppedUnverified: 1,
      droppedBelowConfidence: 0,
      droppedBelowSeverity: 0,
      kept: 3,
    },
    notes: ["The verification pass ran on 3 findings."],
    ...over.report,
  };
  const review: ExportReview = {
    uid: "0b5f7a52-4d55-4f0e-9a43-7c1d2e3f4a5b",
    projectUid: "7e1d0c6a-2b3c-4d5e-8f90-a1b2c3d4e5f6",
    projectName: "Payments API (prod) ✓",
    snapshotUid: "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f",
    engine: "agent",
    status: "completed",
    statusReason: null,
    scope: { kind: "project" },
    promptName: "General code review",
    provider: "anthropic",
    model: "claude-sonnet-4-6",
    usage: { inputTokens: 120_000, outputTokens: 8_000, costUsd: 0.48, iterations: 14 },
    settings: { verify: true, unverified: "keep", minConfidence: 0, minSeverity: "info" },
    createdAt: new Date("2026-03-01T10:00:00Z"),
    startedAt: new Date("2026-03-01T10:00:02Z"),
    finishedAt: new Date("2026-03-01T10:04:30Z"),
    ...over.review,
  };
  return { review, report, dismissed: new Set(over.dismissed ?? []) };
}

/** A taint finding of the static engine whose data flow crosses into another file. */
export function sampleTaintFinding(over: Partial<Finding> = {}): Finding {
  return sampleFinding({
    fingerprint: "fp-flow",
    title: "Request input is built into an SQL query by db.query()",
    severity: "critical",
    file: "src/db/users.ts",
    startLine: 4,
    endLine: 4,
    evidence: "  return db.query(`SELECT * FROM users WHERE id = ${id}`);",
    explanation: "request input is built into an SQL query by db.query() (argus injection/sql).",
    suggestedFix: undefined,
    diff: undefined,
    verification: "not_run",
    verificationNote: undefined,
    source: "static",
    ruleId: "injection/sql",
    trace: [
      { file: "src/routes/users.ts", line: 7, label: "req.query.id" },
      { file: "src/routes/users.ts", line: 7, label: "id = …" },
      { file: "src/routes/users.ts", line: 8, label: "findUser(id)" },
      { file: "src/db/users.ts", line: 4, label: "db.query()" },
    ],
    ...over,
  });
}
