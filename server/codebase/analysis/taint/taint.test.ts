/**
 * The taint engine on its own suites (written for Argus; see suites/load.ts) through the real import
 * pass and cross-file link, against the heuristics it replaced; and the behaviours a reader of a
 * finding relies on: the trace, the cross-file trace, and a pathological file ending with a note.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "../../treesitter.ts";
import { makeContext, runArgusRulesDetailed } from "../rules/index.ts";
import { runTaint } from "./index.ts";
import { CALIBRATION } from "./calibration.ts";
import { confidenceFrom } from "./calibration-model.ts";
import { calibrate } from "./suites/calibrate.ts";
import { originOfMessage } from "./report.ts";
import { loadSuites } from "./suites/load.ts";
import { runSuites, type SuiteRun } from "./suites/run.ts";

let taint: SuiteRun;
let baseline: SuiteRun;
const cases = loadSuites();

beforeAll(async () => {
  taint = await runSuites({ taint: true, cases });
  baseline = await runSuites({ taint: false, cases });
}, 180_000);

async function analyse(
  path: string,
  language: "javascript" | "python" | "typescript",
  source: string,
  budgetMs?: number,
) {
  const { tree } = await parse(language, source);
  try {
    return runTaint(makeContext(path, language, language, source, tree), budgetMs);
  } finally {
    tree?.delete();
  }
}

describe("the taint engine on its suites", () => {
  it("has at least 150 cases per language, each vulnerable or a safe look-alike", () => {
    expect(cases.filter((c) => c.language === "javascript").length).toBeGreaterThanOrEqual(150);
    expect(cases.filter((c) => c.language === "python").length).toBeGreaterThanOrEqual(150);
    expect(cases.filter((c) => !c.vulnerable).length).toBeGreaterThan(100);
  });

  it("JavaScript: F1 ≥ 0.9 by line, few safe look-alikes flagged, well above the old heuristics", () => {
    const js = taint.scores.javascript;
    console.table({ taint: js.byLine.ALL, heuristics: baseline.scores.javascript.byLine.ALL });
    expect(js.byLine.ALL!.f1).toBeGreaterThanOrEqual(0.9);
    expect(js.safeFlagged.share).toBeLessThanOrEqual(0.1);
    expect(js.byLine.ALL!.f1).toBeGreaterThan(baseline.scores.javascript.byLine.ALL!.f1 + 0.2);
  });

  it("Python, file by file: TPR − FPR ≥ 0.8 with precision ≥ 0.9, well above the old heuristics", () => {
    const py = taint.scores.python.byCase.ALL!;
    console.table({ taint: py, heuristics: baseline.scores.python.byCase.ALL });
    expect(py.j).toBeGreaterThanOrEqual(0.8);
    expect(py.precision).toBeGreaterThanOrEqual(0.9);
    expect(py.j).toBeGreaterThan(baseline.scores.python.byCase.ALL!.j + 0.2);
  });

  it("gives each finding its rule's measured precision on the suites as its confidence (calibration.ts is current)", () => {
    const measured = calibrate(cases, taint.findings);
    for (const rule of Object.keys({ ...measured.rules, ...CALIBRATION.rules }))
      for (const origin of ["request", "argv", "queue"])
        expect(
          Math.abs(confidenceFrom(measured, rule, origin) - confidenceFrom(CALIBRATION, rule, origin)),
          `${rule} from ${origin}: run \`npm run bench -- static\` to rewrite calibration.ts`,
        ).toBeLessThanOrEqual(0.05);
    const sql = taint.findings.find(
      (f) => f.ruleId === "injection/sql" && originOfMessage(f.message) === "request" && !/test/.test(f.file),
    )!;
    expect(sql.confidence).toBe(confidenceFrom(CALIBRATION, "injection/sql", "request"));
    const cli = taint.findings.find((f) => f.ruleId === "injection/command" && originOfMessage(f.message) === "argv")!;
    expect(cli).toMatchObject({
      severity: "low",
      confidence: confidenceFrom(CALIBRATION, "injection/command", "argv"),
    });
  });

  it("finds flaws whose source and sink are in different files, with a trace that starts in the caller", () => {
    const f = taint.findings.find((x) => x.file === "javascript/crossfile/import-sink/db.js");
    expect(f).toMatchObject({ ruleId: "injection/sql", startLine: 4 });
    expect(f!.trace![0]).toMatchObject({
      file: "javascript/crossfile/import-sink/import-sink.js",
      label: "req.query.id",
    });
    expect(f!.trace!.at(-1)).toMatchObject({ file: "javascript/crossfile/import-sink/db.js", line: 4 });
    expect(
      taint.findings.some((x) => x.file === "python/crossfile/relative-import/db.py" && x.ruleId === "injection/sql"),
    ).toBe(true);
    expect(taint.findings.some((x) => x.file.startsWith("javascript/crossfile/import-sink-safe/"))).toBe(false);
  });
});

describe("a taint finding", () => {
  it("carries its path, source → steps → sink, in the trace and in the message", async () => {
    const source = [
      'const express = require("express");',
      "const app = express();",
      'app.get("/u", (req, res) => {',
      "  const id = req.query.id;",
      '  const sql = "SELECT * FROM t WHERE id = " + id;',
      "  db.query(sql);",
      "});",
    ].join("\n");
    const { findings } = await analyse("src/app.js", "javascript", source);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ ruleId: "injection/sql", severity: "critical", startLine: 6 });
    expect(findings[0]!.trace!.map((s) => [s.line, s.label])).toEqual([
      [4, "req.query.id"],
      [4, "id = …"],
      [5, "sql = …"],
      [6, "db.query()"],
    ]);
    expect(findings[0]!.message).toContain(
      "flow: req.query.id (line 4) → id = … (line 4) → sql = … (line 5) → db.query() (line 6)",
    );
  });

  it("trusts the environment (the operator sets it) and is low severity on a command-line argument", async () => {
    const env = await analyse("src/deploy.py", "python", 'import os\nos.system("deploy " + os.environ["TARGET"])\n');
    expect(env.findings).toEqual([]);
    const { findings } = await analyse(
      "src/deploy.py",
      "python",
      'import os, sys\nos.system("deploy " + sys.argv[1])\n',
    );
    expect(findings).toMatchObject([{ ruleId: "injection/command", severity: "low" }]);
  });
});

describe("bad input", () => {
  it("a file over its time budget ends its analysis with a note, not an exception", async () => {
    const body = Array.from(
      { length: 3000 },
      (_, i) => `  const v${i} = req.query.a + v${i - 1 < 0 ? 0 : i - 1};`,
    ).join("\n");
    const source = `const app = require("express")();\napp.get("/x", (req, res) => {\n  const v0 = 1;\n${body}\n  res.send(v2999);\n});\n`;
    const result = await analyse("src/huge.js", "javascript", source, 1);
    expect(result.note).toMatch(/time budget/);
  });

  it("deeply nested expressions end the analysis with a note", async () => {
    const nested = `${"(".repeat(600)}req.query.a${")".repeat(600)}`;
    const source = `const app = require("express")();\napp.get("/x", (req, res) => { res.send(${nested}); });\n`;
    const result = await analyse("src/deep.js", "javascript", source);
    expect(result.note).toMatch(/nested too deeply|recursion/);
  });

  it("a file that does not parse is analysed as far as it parses, with a note naming the line", async () => {
    const source =
      'from flask import request\nimport os\n\ndef v():\n    os.system(request.args["c"])\n\ndef broken(:\n';
    const { tree } = await parse("python", source);
    try {
      const result = await runArgusRulesDetailed(makeContext("src/b.py", "python", "python", source, tree));
      expect(result.note).toMatch(/parse errors \(from line 7\)/);
      expect(result.findings.map((f) => f.ruleId)).toContain("injection/command");
    } finally {
      tree?.delete();
    }
  });
});
