/**
 * Which external analysers (ruff, bandit, ShellCheck) a test runs, whatever is installed: a directory
 * to use as their PATH holding exactly the tools the test names — fakes that print a fixed report, or
 * links to the real ones. `ARGUS_EXTERNAL_TOOLS=bandit,shellcheck` (set by .ci/run, which installs
 * them) makes the tests of the real tools run and fail if a tool is missing, instead of skipping.
 */
import { chmodSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { findExecutable } from "../../server/codebase/analysis/which.ts";

export type ExternalTool = "ruff" | "bandit" | "shellcheck";

/** The tools this run must test for real (from ARGUS_EXTERNAL_TOOLS). */
export function requiredTools(): ExternalTool[] {
  return (process.env.ARGUS_EXTERNAL_TOOLS ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter((t): t is ExternalTool => t === "ruff" || t === "bandit" || t === "shellcheck");
}

/** Whether the real tool's tests run: it is installed, or this run requires it (then a missing one fails). */
export function testsRealTool(tool: ExternalTool): boolean {
  return requiredTools().includes(tool) || findExecutable(tool) !== null;
}

const dirs = () => mkdtempSync(path.join(os.tmpdir(), "argus-tools-"));

/** A PATH with none of the tools. */
export function noTools(): string {
  return dirs();
}

/**
 * A PATH whose tools print a fixed report (the text given) and exit with the code a tool uses when
 * it found something (1 for bandit and ShellCheck, 0 for ruff with --exit-zero).
 */
export function fakeTools(reports: Partial<Record<ExternalTool, string>>): string {
  const dir = dirs();
  for (const [tool, report] of Object.entries(reports) as [ExternalTool, string][]) {
    const data = path.join(dir, `${tool}.out`);
    writeFileSync(data, report);
    const bin = path.join(dir, tool);
    writeFileSync(bin, `#!/bin/sh\ncat "${data}"\nexit ${tool === "ruff" ? 0 : 1}\n`);
    chmodSync(bin, 0o755);
  }
  return dir;
}

/** A PATH holding links to the real tools named (and nothing else); throws if one is not installed. */
export function realTools(tools: ExternalTool[]): string {
  const dir = dirs();
  mkdirSync(dir, { recursive: true });
  for (const tool of tools) {
    const real = findExecutable(tool);
    if (!real) throw new Error(`${tool} is not on PATH (this run requires it: ARGUS_EXTERNAL_TOOLS)`);
    symlinkSync(real, path.join(dir, tool));
  }
  return dir;
}
