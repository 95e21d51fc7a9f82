import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseBanditOutput, parseRuffOutput, runExternalTools } from "./external.ts";
import { runStaticAnalysis } from "./index.ts";

/** ruff and bandit are not installed here: fake executables print their documented JSON shapes. */
let root: string;
let fakeBin: string;
let emptyBin: string;

const RUFF_JSON = (root: string) =>
  JSON.stringify([
    {
      cell: null,
      code: "S602",
      end_location: { column: 40, row: 4 },
      filename: path.join(root, "app.py"),
      fix: null,
      location: { column: 5, row: 4 },
      message: "`subprocess` call with `shell=True` identified",
      noqa_row: 4,
      url: "https://docs.astral.sh/ruff/rules/subprocess-popen-with-shell-equals-true",
    },
    {
      cell: null,
      code: "F401",
      end_location: { column: 10, row: 1 },
      filename: path.join(root, "app.py"),
      fix: null,
      location: { column: 8, row: 1 },
      message: "`os` imported but unused",
      noqa_row: 1,
      url: null,
    },
  ]);
const BANDIT_JSON = (root: string) =>
  JSON.stringify({
    errors: [],
    results: [
      {
        code: "4 subprocess.run(cmd, shell=True)\n",
        filename: path.join(root, "app.py"),
        issue_confidence: "HIGH",
        issue_severity: "HIGH",
        issue_text: "subprocess call with shell=True identified, security issue.",
        line_number: 4,
        line_range: [4, 5],
        test_id: "B602",
        test_name: "subprocess_popen_with_shell_equals_true",
      },
    ],
  });

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), "argus-ext-"));
  writeFileSync(
    path.join(root, "app.py"),
    "import os\nimport subprocess\ndef run(cmd):\n    subprocess.run(cmd, shell=True)\n",
  );
  fakeBin = path.join(root, "bin");
  emptyBin = path.join(root, "empty");
  mkdirSync(fakeBin);
  mkdirSync(emptyBin);
  writeFileSync(path.join(root, "ruff.json"), RUFF_JSON(root));
  writeFileSync(path.join(root, "bandit.json"), BANDIT_JSON(root));
  // bandit exits 1 when it found issues: that is still a report.
  writeFileSync(path.join(fakeBin, "ruff"), `#!/bin/sh\ncat "${root}/ruff.json"\n`);
  writeFileSync(path.join(fakeBin, "bandit"), `#!/bin/sh\ncat "${root}/bandit.json"\nexit 1\n`);
  chmodSync(path.join(fakeBin, "ruff"), 0o755);
  chmodSync(path.join(fakeBin, "bandit"), 0o755);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("ruff and bandit", () => {
  it("absent from PATH: skipped cleanly, with the reason", async () => {
    const { findings, runs } = await runExternalTools({ root, files: ["app.py"], envPath: emptyBin });
    expect(findings).toEqual([]);
    expect(runs.map((r) => `${r.tool}:${r.status}:${r.detail}`)).toEqual([
      "ruff:skipped:ruff is not on PATH",
      "bandit:skipped:bandit is not on PATH",
    ]);
  });

  it("present: their JSON becomes findings with relative paths", async () => {
    const { findings, runs } = await runExternalTools({ root, files: ["app.py", "web.ts"], envPath: fakeBin });
    expect(runs.map((r) => `${r.tool}:${r.status}:${r.findings}`)).toEqual(["ruff:ran:2", "bandit:ran:1"]);
    expect(findings).toContainEqual({
      tool: "ruff",
      ruleId: "S602",
      severity: "high",
      confidence: 0.6,
      file: "app.py",
      startLine: 4,
      endLine: 4,
      message: "`subprocess` call with `shell=True` identified",
    });
    expect(findings).toContainEqual({
      tool: "bandit",
      ruleId: "B602",
      severity: "high",
      confidence: 0.8,
      file: "app.py",
      startLine: 4,
      endLine: 5,
      message: "subprocess call with shell=True identified, security issue. (subprocess_popen_with_shell_equals_true)",
    });
  });

  it("a tool that fails is recorded as failed, not thrown", async () => {
    const broken = path.join(root, "broken");
    mkdirSync(broken);
    writeFileSync(path.join(broken, "ruff"), "#!/bin/sh\necho 'ruff: config error' >&2\nexit 2\n");
    chmodSync(path.join(broken, "ruff"), 0o755);
    const { runs } = await runExternalTools({ root, files: ["app.py"], envPath: broken });
    expect(runs[0]).toMatchObject({ tool: "ruff", status: "failed", detail: "exit 2: ruff: config error" });
  });

  it("parsers accept empty output", () => {
    expect(parseRuffOutput(root, "")).toEqual([]);
    expect(parseBanditOutput(root, "")).toEqual([]);
  });
});

describe("runStaticAnalysis", () => {
  it("runs every tool, never throws, and sorts findings most severe first", { timeout: 60_000 }, async () => {
    // A route handler: the taint engine follows request data from handlers' requests only.
    writeFileSync(
      path.join(root, "web.js"),
      'const app = require("express")();\napp.get("/ls", (req, res) => {\n  require("child_process").exec("ls " + req.query.dir);\n  res.end();\n});\n',
    );
    const { findings, runs } = await runStaticAnalysis({
      root,
      files: [
        { path: "app.py", language: "python" },
        { path: "web.js", language: "javascript" },
        { path: "gone.ts", language: "typescript" },
      ],
      eslint: { inProcess: true },
      external: { envPath: fakeBin },
    });
    expect(runs.map((r) => `${r.tool}:${r.status}`)).toEqual(["argus:ran", "eslint:ran", "ruff:ran", "bandit:ran"]);
    expect(findings[0]).toMatchObject({
      tool: "argus",
      ruleId: "injection/command",
      severity: "critical",
      file: "web.js",
    });
    const ranks = findings.map((f) => ["critical", "high", "medium", "low", "info"].indexOf(f.severity));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
  });
});
