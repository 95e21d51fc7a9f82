import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runEslint } from "./index.ts";

const APP = fileURLToPath(new URL("../../../../test/fixtures/codebase/analysis/app.js.fixture", import.meta.url));

const roots: string[] = [];
/** A temp project with the vulnerable app.js fixture and, optionally, its own eslint config. */
function project(config?: string): string {
  const root = mkdtempSync(path.join(os.tmpdir(), "argus-eslint-"));
  roots.push(root);
  cpSync(APP, path.join(root, "app.js"));
  writeFileSync(path.join(root, "util.ts"), "export const run = (cmd: string) => eval(cmd);\n");
  if (config) writeFileSync(path.join(root, "eslint.config.mjs"), config);
  return root;
}

afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

describe("ESLint pre-pass", () => {
  it(
    "without a project config: the built-in security config, in a worker, on JS and TS",
    { timeout: 60_000 },
    async () => {
      const root = project();
      const { findings, run } = await runEslint({ root, files: ["app.js", "util.ts", "README.md"] });
      expect(run).toMatchObject({
        tool: "eslint",
        status: "ran",
        files: 2,
        detail: expect.stringContaining("built-in security config"),
      });
      const rules = new Set(findings.map((f) => f.ruleId));
      expect(rules).toContain("security/detect-child-process");
      expect(rules).toContain("security/detect-eval-with-expression");
      expect(findings.find((f) => f.file === "util.ts")).toMatchObject({
        tool: "eslint",
        ruleId: "security/detect-eval-with-expression",
        severity: "high",
        startLine: 1,
      });
    },
  );

  it("with a project config: the project's rules", { timeout: 60_000 }, async () => {
    const root = project(
      `export default [{ files: ["**/*.js"], rules: { "no-eval": "error", "no-unused-vars": "warn" } }];\n`,
    );
    const { findings, run } = await runEslint({ root, files: ["app.js", "eslint.config.mjs"], inProcess: true });
    expect(run).toMatchObject({ status: "ran", detail: "project config eslint.config.mjs" });
    expect(findings.filter((f) => f.ruleId === "no-eval").map((f) => f.severity)).toEqual(["low", "low"]);
    expect(findings.some((f) => f.ruleId.startsWith("security/"))).toBe(false);
  });

  it(
    "a project config that cannot load: falls back to the built-in one and says why",
    { timeout: 60_000 },
    async () => {
      const root = project(
        `import plugin from "eslint-plugin-that-is-not-installed";\nexport default [plugin.configs.all];\n`,
      );
      const { findings, run } = await runEslint({ root, files: ["app.js"], inProcess: true });
      expect(run.status).toBe("ran");
      expect(run.detail).toMatch(
        /^built-in security config .*fell back: eslint\.config\.mjs could not be used \(.*eslint-plugin-that-is-not-installed/,
      );
      expect(findings.some((f) => f.ruleId === "security/detect-child-process")).toBe(true);
    },
  );

  it("useProjectConfig: false never loads (executes) the project's config", { timeout: 60_000 }, async () => {
    const root = project(`throw new Error("the project's config ran");\n`);
    const { run } = await runEslint({ root, files: ["app.js"], inProcess: true, useProjectConfig: false });
    expect(run).toMatchObject({ status: "ran", detail: expect.not.stringContaining("fell back") });
  });

  it("a config that hangs is stopped by the timeout; nothing throws", { timeout: 60_000 }, async () => {
    const root = project(`while (true) {}\nexport default [];\n`);
    const { findings, run } = await runEslint({ root, files: ["app.js"], timeoutMs: 3000 });
    expect(findings).toEqual([]);
    expect(run).toMatchObject({ status: "failed", detail: "ESLint timed out after 3 s" });
  });

  it("nothing to lint is a skip", async () => {
    const { run } = await runEslint({ root: os.tmpdir(), files: ["a.py", "b.go"] });
    expect(run).toMatchObject({ status: "skipped", detail: "no JavaScript or TypeScript files" });
  });
});
