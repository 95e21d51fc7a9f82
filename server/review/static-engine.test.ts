/**
 * The static engine on the demo project, whose flaws we planted and listed below: the same import and
 * review as the web app and `argus review`, scored against that list. Precision and recall are
 * printed; the rules cannot see logic bugs, so recall over all flaws is bounded by the security share.
 */
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeTools, noTools, realTools, testsRealTool } from "../../test/helpers/external-tools.ts";
import { openSymbolIndex } from "../codebase/symbols/index.ts";
import { runImport } from "../snapshots/import.ts";
import { snapshotDirs } from "../snapshots/storage.ts";
import { DEMO_DIR } from "./demo.ts";
import type { Report } from "./report/schema.ts";
import { reviewSettingsSchema, reviewBudgetSchema } from "./report/schema.ts";
import { executeReview } from "./run.ts";
import { staticFindingsToReport } from "./static-engine.ts";
import { staticInputFromRow } from "../agent/index.ts";

/** The planted flaws: file, line range, and whether a rule could find it (security) or only a reader (logic). */
const PLANTED = [
  { file: "src/api.py", lines: [19, 19], kind: "security", what: "SQL injection" },
  { file: "src/api.py", lines: [26, 26], kind: "security", what: "pickle of request data" },
  { file: "src/api.py", lines: [37, 37], kind: "security", what: "shell command from request input" },
  { file: "src/api.py", lines: [43, 43], kind: "logic", what: "low_stock uses <= for 'below'" },
  { file: "src/settings.py", lines: [4, 4], kind: "security", what: "database password in code" },
  { file: "src/settings.py", lines: [7, 7], kind: "security", what: "AWS access key" },
  { file: "src/settings.py", lines: [8, 8], kind: "security", what: "AWS secret key" },
  { file: "src/server.js", lines: [13, 14], kind: "security", what: "path traversal in /download" },
  { file: "src/server.js", lines: [20, 20], kind: "security", what: "open redirect" },
  { file: "src/server.js", lines: [24, 24], kind: "security", what: "command injection in /ping" },
  { file: "src/server.js", lines: [28, 28], kind: "security", what: "eval of request body" },
  { file: "src/server.js", lines: [32, 32], kind: "security", what: "md5 password hashing" },
  { file: "src/pricing.js", lines: [6, 6], kind: "logic", what: "off-by-one loop reads past the end" },
  { file: "src/pricing.js", lines: [14, 15], kind: "logic", what: "discount applied twice" },
  { file: "src/pricing.js", lines: [20, 21], kind: "logic", what: "split bill loses the remainder" },
] as const;

/**
 * Which external tools run is part of each case, never whatever this machine has installed: none;
 * bandit as Debian's bandit 1.6.2 reports on the demo (its recorded output); and the bandit installed
 * here (CI installs it and requires this case: ARGUS_EXTERNAL_TOOLS).
 */
const TOOLS = [
  { name: "no external tools", path: () => noTools(), runs: true },
  {
    name: "Debian's bandit 1.6.2 (its recorded report on the demo)",
    path: () =>
      fakeTools({
        bandit: readFileSync(
          new URL("../../test/fixtures/external-tools/bandit-1.6.2-demo-project.json", import.meta.url),
          "utf8",
        ),
      }),
    runs: true,
  },
  { name: "the bandit on this machine", path: () => realTools(["bandit"]), runs: testsRealTool("bandit") },
];

let base: string;
const reports = new Map<string, Report>();

async function reviewDemo(toolsPath: string): Promise<Report> {
  const dirs = snapshotDirs(base, "p", `s${reports.size}`);
  const imported = await runImport({ kind: "path", path: DEMO_DIR }, dirs, () => {}, {
    limits: {},
    externalToolsPath: toolsPath,
  });
  const symbols = openSymbolIndex(dirs.symbols);
  const files = symbols.files().map((f) => f.path);
  symbols.close();
  const { report } = await executeReview({
    engine: "static",
    root: dirs.src,
    files,
    languages: imported.summary.languages,
    staticFindings: imported.findings,
    scope: { kind: "project" },
    settings: reviewSettingsSchema.parse({}),
    budget: reviewBudgetSchema.parse({}),
    dismissed: [],
    emit: () => {},
  });
  return report;
}

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "argus-static-"));
  for (const t of TOOLS) if (t.runs) reports.set(t.name, await reviewDemo(t.path()));
}, 180_000);

afterAll(() => rm(base, { recursive: true, force: true }));

const overlaps = (f: { file: string; startLine: number; endLine: number }, p: (typeof PLANTED)[number]) =>
  f.file === p.file && f.startLine <= p.lines[1] && f.endLine >= p.lines[0];

describe.each(TOOLS)("the static engine on the demo project, with $name", (tools) => {
  it.runIf(tools.runs)("finds every planted security flaw with few false alarms (precision and recall printed)", () => {
    const report = reports.get(tools.name)!;
    const truePositives = report.findings.filter((f) => PLANTED.some((p) => overlaps(f, p)));
    const found = PLANTED.filter((p) => report.findings.some((f) => overlaps(f, p)));
    const security = PLANTED.filter((p) => p.kind === "security");
    const precision = truePositives.length / report.findings.length;
    const recall = found.length / PLANTED.length;
    const securityRecall = found.filter((p) => p.kind === "security").length / security.length;
    console.log(
      `static engine on the demo project (${tools.name}): ${report.findings.length} findings, precision ${precision.toFixed(2)}, ` +
        `recall ${recall.toFixed(2)} over all ${PLANTED.length} planted flaws, ${securityRecall.toFixed(2)} over the ${security.length} security flaws; ` +
        `missed: ${PLANTED.filter((p) => !found.includes(p))
          .map((p) => p.what)
          .join("; ")}`,
    );
    expect(securityRecall).toBe(1);
    expect(precision).toBeGreaterThanOrEqual(0.9);
    expect(found.filter((p) => p.kind === "logic")).toEqual([]); // rules do not read logic; the agent engine is for that
    // One finding per place and weakness: what another tool also flagged is named on Argus's finding.
    const places = report.findings.map((f) => `${f.file}:${f.startLine}:${f.category}`);
    expect(new Set(places).size).toBe(places.length);
  });
});

describe("the static engine on the demo project", () => {
  const plain = () => reports.get(TOOLS[0]!.name)!;

  it("merges bandit's findings into Argus's (one per place and weakness) and leaves out its import notices", () => {
    const withBandit = reports.get(TOOLS[1]!.name)!;
    const command = withBandit.findings.find((f) => f.file === "src/api.py" && f.startLine === 37)!;
    expect(command).toMatchObject({ ruleId: "injection/command", severity: "critical" });
    expect(command.explanation).toContain("(argus injection/command; also reported by bandit B602)");
    expect(command.trace?.length).toBeGreaterThan(0);
    expect(withBandit.findings.filter((f) => f.file === "src/api.py" && f.startLine <= 5)).toEqual([]);
    expect(withBandit.findings.length).toBe(plain().findings.length);
  });

  it("labels the report as needing no LLM and rolls findings up per file (clean files are not listed)", () => {
    const report = plain();
    expect(report.engine).toBe("static");
    expect(report.engineLabel).toBe("static analysis — no LLM");
    expect(report.files.map((f) => f.path).sort()).toEqual(["src/api.py", "src/server.js", "src/settings.py"]);
    expect(report.files.every((f) => f.score < 50)).toBe(true);
    expect(report.files.find((f) => f.path === "src/pricing.js")).toBeUndefined();
    expect(report.findings.every((f) => f.source === "static" && f.ruleId)).toBe(true);
    // A taint finding carries its path from the request to the sink, step by step (not repeated in the text).
    const sql = report.findings.find((f) => f.file === "src/api.py" && f.ruleId === "injection/sql")!;
    expect(sql.trace).toEqual([
      { file: "src/api.py", line: 17, label: 'request.args.get("name", "")' },
      { file: "src/api.py", line: 17, label: "name = …" },
      { file: "src/api.py", line: 19, label: "cursor.execute()" },
    ]);
    expect(sql.explanation).toBe("request input is built into an SQL query by cursor.execute() (argus injection/sql)");
  });
});

describe("static findings as review findings", () => {
  const row = {
    tool: "argus",
    ruleId: "injection/sql",
    severity: "critical",
    confidence: 0.9,
    file: "a.py",
    startLine: 2,
    endLine: 2,
    message:
      "request input is built into an SQL query by db.execute(); flow: request.args (line 1) → db.execute() (line 2)",
  };
  const lines = async () => ["q = request.args", "db.execute(q)"];

  it("a stored trace is read back and carried to the review finding; a broken one is dropped", async () => {
    const trace = [
      { file: "a.py", line: 1, label: "request.args" },
      { file: "a.py", line: 2, label: "db.execute()" },
    ];
    const stored = staticInputFromRow({ ...row, trace: JSON.stringify(trace) });
    expect(stored.trace).toEqual(trace);
    expect(staticInputFromRow({ ...row, trace: '[{"file":"a.py","line":0}]' }).trace).toBeUndefined();
    expect(staticInputFromRow({ ...row, trace: "not json" }).trace).toBeUndefined();
    const { findings } = await staticFindingsToReport([stored], lines);
    expect(findings[0]).toMatchObject({ trace, title: "Request input is built into an SQL query by db.execute()" });
    expect(findings[0]!.explanation).not.toContain("Data flow");
  });

  it("a finding stored before traces had a column keeps its path as a numbered list in the explanation", async () => {
    const { findings } = await staticFindingsToReport([staticInputFromRow({ ...row, trace: null })], lines);
    expect(findings[0]!.trace).toBeUndefined();
    expect(findings[0]!.explanation).toContain("Data flow:\n1. request.args (line 1)\n2. db.execute() (line 2)");
  });
});
