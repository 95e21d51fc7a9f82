import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { realTools, testsRealTool } from "../../../test/helpers/external-tools.ts";
import { parseBanditOutput, parseRuffOutput, parseShellCheckOutput, runExternalTools } from "./external.ts";
import { runStaticAnalysis } from "./index.ts";

/** Fake executables print the tools' documented JSON shapes (the real ones are tested at the end). */
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

const SHELLCHECK_JSON = JSON.stringify({
  comments: [
    {
      file: "scripts/deploy",
      line: 3,
      endLine: 3,
      column: 8,
      endColumn: 13,
      level: "info",
      code: 2086,
      message: "Double quote to prevent globbing and word splitting.",
      fix: null,
    },
    {
      file: "scripts/deploy",
      line: 4,
      endLine: 4,
      column: 1,
      endColumn: 1,
      level: "info",
      code: 1091,
      message: "Not following: ./lib.sh was not specified as input (see shellcheck -x).",
      fix: null,
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
  writeFileSync(path.join(root, "shellcheck.json"), SHELLCHECK_JSON);
  mkdirSync(path.join(root, "scripts"));
  writeFileSync(path.join(root, "scripts/deploy"), "#!/bin/bash\nname=$1\nrm -rf $name/*\nsource ./lib.sh\n");
  // bandit exits 1 when it found issues: that is still a report.
  writeFileSync(path.join(fakeBin, "ruff"), `#!/bin/sh\ncat "${root}/ruff.json"\n`);
  writeFileSync(path.join(fakeBin, "bandit"), `#!/bin/sh\ncat "${root}/bandit.json"\nexit 1\n`);
  // The arguments ShellCheck got go to a file: the test checks it reads no project config (--norc).
  writeFileSync(
    path.join(fakeBin, "shellcheck"),
    `#!/bin/sh\necho "$@" > "${root}/shellcheck.args"\ncat "${root}/shellcheck.json"\nexit 1\n`,
  );
  for (const tool of ["ruff", "bandit", "shellcheck"]) chmodSync(path.join(fakeBin, tool), 0o755);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("ruff, bandit and ShellCheck", () => {
  it("absent from PATH: skipped cleanly, with the reason", async () => {
    const { findings, runs } = await runExternalTools({ root, files: ["app.py"], envPath: emptyBin });
    expect(findings).toEqual([]);
    expect(runs.map((r) => `${r.tool}:${r.status}:${r.detail}`)).toEqual([
      "ruff:skipped:ruff is not on PATH",
      "bandit:skipped:bandit is not on PATH",
      "shellcheck:skipped:shellcheck is not on PATH",
    ]);
  });

  it("present: their JSON becomes findings with relative paths", async () => {
    const { findings, runs } = await runExternalTools({
      root,
      files: ["app.py", "web.ts", { path: "scripts/deploy", language: "shell" }, "notes.zsh"],
      envPath: fakeBin,
    });
    expect(runs.map((r) => `${r.tool}:${r.status}:${r.files}:${r.findings}`)).toEqual([
      "ruff:ran:1:2",
      "bandit:ran:1:1",
      "shellcheck:ran:1:1",
    ]);
    // A script found by its shebang is checked; zsh is not ShellCheck's; no .shellcheckrc is read.
    expect(readFileSync(path.join(root, "shellcheck.args"), "utf8").trim()).toBe(
      "-f json1 --norc -S info -- scripts/deploy",
    );
    expect(findings).toContainEqual({
      tool: "shellcheck",
      ruleId: "SC2086",
      severity: "info",
      confidence: 0.5,
      file: "scripts/deploy",
      startLine: 3,
      endLine: 3,
      message: "Double quote to prevent globbing and word splitting.",
    });
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

  it("with no files of their kind they are skipped, saying so", async () => {
    const { runs } = await runExternalTools({ root, files: ["web.ts"], envPath: fakeBin });
    expect(runs.map((r) => `${r.tool}:${r.status}:${r.detail}`)).toEqual([
      "ruff:skipped:no Python files",
      "bandit:skipped:no Python files",
      "shellcheck:skipped:no shell scripts",
    ]);
  });

  it("parsers accept empty output", () => {
    expect(parseRuffOutput(root, "")).toEqual([]);
    expect(parseBanditOutput(root, "")).toEqual([]);
    expect(parseShellCheckOutput(root, "")).toEqual([]);
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
    expect(runs.map((r) => `${r.tool}:${r.status}`)).toEqual([
      "argus:ran",
      "eslint:ran",
      "ruff:ran",
      "bandit:ran",
      "shellcheck:skipped",
    ]);
    expect(findings[0]).toMatchObject({
      tool: "argus",
      ruleId: "injection/command",
      severity: "critical",
      file: "web.js",
    });
    const ranks = findings.map((f) => ["critical", "high", "medium", "low", "info"].indexOf(f.severity));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
  });

  it("after a push, runs the per-file tools on the changed files only and keeps the earlier findings elsewhere", async () => {
    const carried = (file: string, ruleId: string) => ({
      tool: "ruff",
      ruleId,
      severity: "high" as const,
      confidence: 0.8,
      file,
      startLine: 1,
      endLine: 1,
      message: "found before the push",
    });
    writeFileSync(
      path.join(root, "web.js"),
      'const app = require("express")();\napp.get("/ls", (req, res) => {\n  require("child_process").exec("ls " + req.query.dir);\n  res.end();\n});\n',
    );
    const { findings, runs } = await runStaticAnalysis({
      root,
      files: [
        { path: "app.py", language: "python" },
        { path: "web.js", language: "javascript" },
      ],
      eslint: { inProcess: true },
      external: { envPath: fakeBin },
      // web.js changed; app.py did not, and its earlier finding stands. A finding on a changed file
      // (or one no longer in the tree) is the tools' to raise again, not kept.
      reuse: {
        changed: new Set(["web.js"]),
        findings: [carried("app.py", "EARLIER1"), carried("web.js", "EARLIER2"), carried("gone.py", "EARLIER3")],
      },
    });
    expect(findings.filter((f) => f.ruleId.startsWith("EARLIER")).map((f) => `${f.file}:${f.ruleId}`)).toEqual([
      "app.py:EARLIER1",
    ]);
    // ruff and bandit had no changed Python file to read: the fake tools' findings on app.py are not there.
    expect(findings.some((f) => f.tool === "ruff" && f.ruleId === "S602")).toBe(false);
    expect(runs.find((r) => r.tool === "ruff")).toMatchObject({ status: "skipped", files: 0 });
    // Argus's own rules still cover every file.
    expect(findings.some((f) => f.tool === "argus" && f.file === "web.js")).toBe(true);
  });
});

/** The real tools, when installed (.ci/run installs them and sets ARGUS_EXTERNAL_TOOLS, so there they must run). */
describe("the real tools", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "argus-ext-real-"));
    writeFileSync(
      path.join(dir, "views.py"),
      [
        "import subprocess",
        "from flask import request",
        "",
        "def backup():",
        '    target = request.args.get("target")',
        '    subprocess.run("tar czf " + target, shell=True)',
        "",
        "def nightly():",
        '    subprocess.run("tar czf /backups/nightly.tgz /srv", shell=True)',
        "",
      ].join("\n"),
    );
    writeFileSync(path.join(dir, "clean.sh"), "#!/bin/sh\nrm -rf $1/*\n");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.runIf(testsRealTool("bandit"))(
    "bandit: its finding merges into Argus's taint finding; where no request data reaches, it is left out",
    { timeout: 60_000 },
    async () => {
      const { findings, runs } = await runStaticAnalysis({
        root: dir,
        files: [{ path: "views.py", language: "python" }],
        eslint: false,
        external: { envPath: realTools(["bandit"]) },
      });
      const bandit = runs.find((r) => r.tool === "bandit")!;
      expect(bandit.status).toBe("ran");
      expect(bandit.detail).toMatch(/merged with another tool's finding/);
      expect(bandit.detail).toMatch(/left out where Argus's taint analysis found no untrusted data/);
      // Line 6: one finding (Argus's, naming bandit's B602). Line 9: B602 "shell=True" is left out (a
      // constant command), B607 (a program found through PATH) is another weakness and stays; the
      // B404 "subprocess imported" notice is left out.
      expect(findings.map((f) => `${f.tool}:${f.ruleId}:${f.startLine}`)).toEqual([
        "argus:injection/command:6",
        "bandit:B607:9",
      ]);
      expect(findings[0]!.message).toMatch(/\(also reported by bandit B602\); flow: /);
    },
  );

  it.runIf(testsRealTool("shellcheck"))("shellcheck: its findings on a script", { timeout: 60_000 }, async () => {
    const { findings, runs } = await runExternalTools({
      root: dir,
      files: [{ path: "clean.sh", language: "shell" }],
      envPath: realTools(["shellcheck"]),
    });
    expect(runs.find((r) => r.tool === "shellcheck")).toMatchObject({ status: "ran", files: 1 });
    expect(findings.map((f) => `${f.tool}:${f.ruleId}:${f.startLine}`)).toEqual(
      expect.arrayContaining(["shellcheck:SC2115:2", "shellcheck:SC2086:2"]),
    );
  });
});
