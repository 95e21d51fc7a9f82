/** `argus review` as a CI step would run it: formats, --fail-on and the exit codes. */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { DEMO_DIR } from "../review/index.ts";
import { runReviewCli } from "./review.ts";

const out = mkdtempSync(path.join(os.tmpdir(), "argus-review-cli-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

async function run(...argv: string[]) {
  const errors: string[] = [];
  const spy = vi.spyOn(console, "error").mockImplementation((m: unknown) => void errors.push(String(m)));
  const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  try {
    return { code: await runReviewCli(argv), errors: errors.join("\n") };
  } finally {
    spy.mockRestore();
    write.mockRestore();
  }
}

describe("argus review", () => {
  it("writes SARIF and exits 1 when findings at or above --fail-on exist", async () => {
    const file = path.join(out, "r.sarif");
    const r = await run(DEMO_DIR, "--format", "sarif", "--out", file, "--fail-on", "critical");
    expect(r.code).toBe(1);
    const sarif = JSON.parse(readFileSync(file, "utf8"));
    expect(sarif.version).toBe("2.1.0");
    expect(sarif.runs[0].results.length).toBeGreaterThan(5);
  }, 60_000);

  it("exits 0 when nothing reaches --fail-on (a path scope without critical findings)", async () => {
    const file = path.join(out, "r.json");
    const r = await run(DEMO_DIR, "--paths", "src/pricing.js", "--format", "json", "--out", file, "--fail-on", "low");
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(file, "utf8")).report.findings).toEqual([]);
  }, 60_000);

  it("exits 2 on usage errors, each explained", async () => {
    expect(await run()).toMatchObject({ code: 2, errors: expect.stringMatching(/exactly one folder/) });
    expect(await run(DEMO_DIR, "--engine", "magic")).toMatchObject({
      code: 2,
      errors: expect.stringMatching(/--engine is static or agent/),
    });
    expect(await run(DEMO_DIR, "--fail-on", "severe")).toMatchObject({
      code: 2,
      errors: expect.stringMatching(/--fail-on is one of critical/),
    });
    expect(await run(DEMO_DIR, "--max-iterations", "1.5")).toMatchObject({
      code: 2,
      errors: expect.stringMatching(/whole number/),
    });
    expect(await run(DEMO_DIR, "--diff", "main")).toMatchObject({
      code: 2,
      errors: expect.stringMatching(/base\.\.head/),
    });
    expect(await run(DEMO_DIR, "--paths", "nothere")).toMatchObject({
      code: 2,
      errors: expect.stringMatching(/No file of the project matches "nothere"/),
    });
  }, 60_000);
});
