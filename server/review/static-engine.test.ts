/**
 * The static engine on the demo project, whose flaws we planted and listed below: the same import and
 * review as the web app and `argus review`, scored against that list. Precision and recall are
 * printed; the rules cannot see logic bugs, so recall over all flaws is bounded by the security share.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSymbolIndex } from "../codebase/symbols/index.ts";
import { runImport } from "../snapshots/import.ts";
import { snapshotDirs } from "../snapshots/storage.ts";
import { DEMO_DIR } from "./demo.ts";
import type { Report } from "./report/schema.ts";
import { reviewSettingsSchema, reviewBudgetSchema } from "./report/schema.ts";
import { executeReview } from "./run.ts";

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

let base: string;
let report: Report;

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "argus-static-"));
  const dirs = snapshotDirs(base, "p", "s");
  const imported = await runImport({ kind: "path", path: DEMO_DIR }, dirs, () => {}, { limits: {} });
  const symbols = openSymbolIndex(dirs.symbols);
  const files = symbols.files().map((f) => f.path);
  symbols.close();
  ({ report } = await executeReview({
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
  }));
}, 120_000);

afterAll(() => rm(base, { recursive: true, force: true }));

const overlaps = (f: { file: string; startLine: number; endLine: number }, p: (typeof PLANTED)[number]) =>
  f.file === p.file && f.startLine <= p.lines[1] && f.endLine >= p.lines[0];

describe("the static engine on the demo project", () => {
  it("finds every planted security flaw with few false alarms (precision and recall printed)", () => {
    const truePositives = report.findings.filter((f) => PLANTED.some((p) => overlaps(f, p)));
    const found = PLANTED.filter((p) => report.findings.some((f) => overlaps(f, p)));
    const security = PLANTED.filter((p) => p.kind === "security");
    const precision = truePositives.length / report.findings.length;
    const recall = found.length / PLANTED.length;
    const securityRecall = found.filter((p) => p.kind === "security").length / security.length;
    console.log(
      `static engine on the demo project: ${report.findings.length} findings, precision ${precision.toFixed(2)}, ` +
        `recall ${recall.toFixed(2)} over all ${PLANTED.length} planted flaws, ${securityRecall.toFixed(2)} over the ${security.length} security flaws; ` +
        `missed: ${PLANTED.filter((p) => !found.includes(p))
          .map((p) => p.what)
          .join("; ")}`,
    );
    expect(securityRecall).toBe(1);
    expect(precision).toBeGreaterThanOrEqual(0.9);
    expect(found.filter((p) => p.kind === "logic")).toEqual([]); // rules do not read logic; the agent engine is for that
  });

  it("labels the report as needing no LLM and rolls findings up per file (clean files are not listed)", () => {
    expect(report.engine).toBe("static");
    expect(report.engineLabel).toBe("static analysis — no LLM");
    expect(report.files.map((f) => f.path).sort()).toEqual(["src/api.py", "src/server.js", "src/settings.py"]);
    expect(report.files.every((f) => f.score < 50)).toBe(true);
    expect(report.files.find((f) => f.path === "src/pricing.js")).toBeUndefined();
    expect(report.findings.every((f) => f.source === "static" && f.ruleId)).toBe(true);
    // A taint finding explains its path from the request to the sink, step by step.
    const sql = report.findings.find((f) => f.file === "src/api.py" && f.ruleId === "injection/sql")!;
    expect(sql.explanation).toContain(
      'Data flow:\n1. request.args.get("name", "") (line 17)\n2. name = … (line 17)\n3. cursor.execute() (line 19)',
    );
  });
});
