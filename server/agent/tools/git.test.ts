import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createReviewTools, runToolCall } from "./index.ts";
import { fixtureWithTools } from "./test-fixture.ts";

const { f, call } = await fixtureWithTools();

describe("get_diff", () => {
  it("lists changed files with counts, then the patch", async () => {
    const r = await call("get_diff", { from: f.commits.first, to: f.commits.second });
    const lines = r.text.split("\n");
    expect(lines[0]).toBe(
      `Diff ${f.commits.first}..${f.commits.second} (${f.commits.first.slice(0, 10)}..${f.commits.second.slice(0, 10)}): 1 file changed, +15 −1 (1 changed file excluded by ignore rules not shown)`,
    );
    expect(lines[1]).toBe("  M src/app.ts (+15 −1)");
    expect(r.text).toContain("diff --git a/src/app.ts b/src/app.ts");
    expect(r.text).toContain("+export function runQuery(db: { query(sql: string): unknown }, id: string) {");
    expect(r.text).toContain('-  return "Hello, " + formatName(name);');
  });

  it("never shows the diff of an excluded file (a committed .env)", async () => {
    const r = await call("get_diff", { from: "HEAD~1" });
    expect(r.text).not.toContain(".env");
    for (const s of f.ignoredSecrets) expect(r.text).not.toContain(s);
    const asked = await call("get_diff", { from: "HEAD~1", paths: [".env"] });
    expect(asked.isError).toBe(true);
    expect(asked.text).toMatch(/excluded from the review/);
  });

  it("narrows by path and context lines", async () => {
    const r = await call("get_diff", { from: "HEAD~1", paths: ["src/util.ts"] });
    expect(r.text).toMatch(/^No changes between HEAD~1 and HEAD \(.*\) under src\/util.ts\.$/);
    const tight = await call("get_diff", { from: "HEAD~1", paths: ["src"], context_lines: 0 });
    expect(tight.text).toContain("@@ -1,0 +2,9 @@");
    // No unchanged lines around the changes (they start with a space in a unified diff).
    expect(tight.text.split("\n").filter((l) => l.startsWith(" "))).toEqual(["  M src/app.ts (+15 −1)"]);
  });

  it("explains bad revisions and option-like refs", async () => {
    expect((await call("get_diff", { from: "no-such-branch" })).text).toBe(
      'There is no commit "no-such-branch" in this snapshot.',
    );
    expect((await call("get_diff", { from: "--output=/tmp/x" })).text).toMatch(
      /is not a revision: give a branch, a tag or a commit id/,
    );
    expect((await call("get_diff", { from: "HEAD", paths: ["../outside"] })).text).toMatch(/climbs with "\.\."/);
  });
});

describe("get_git_log", () => {
  it("lists commits newest first", async () => {
    const r = await call("get_git_log", {});
    const lines = r.text.split("\n");
    expect(lines[0]).toBe("2 commits of HEAD, newest first:");
    expect(lines[1]).toMatch(
      new RegExp(`^${f.commits.second.slice(0, 10)} \\d{4}-\\d{2}-\\d{2} Ada: second: Greeter class and a query$`),
    );
    expect(lines[2]).toMatch(/ Ada: first: greet$/);
  });

  it("filters by path and limit", async () => {
    expect((await call("get_git_log", { path: "src/util.ts" })).text.split("\n")).toHaveLength(2);
    const one = await call("get_git_log", { limit: 1 });
    expect(one.text).toContain("[More commits exist");
    expect((await call("get_git_log", { path: ".env" })).isError).toBe(true);
  });

  it("says clearly when the snapshot has no git history", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "argus-nogit-"));
    try {
      writeFileSync(path.join(dir, "a.ts"), "export {};\n");
      const set = createReviewTools({ root: dir, staticFindings: async () => [] });
      const expected = {
        isError: true,
        text: "This snapshot has no git history: only git sources keep it (uploads and local folders don't).",
      };
      expect(await runToolCall(set, "get_git_log", {})).toEqual(expected);
      expect(await runToolCall(set, "get_diff", { from: "HEAD~1" })).toEqual(expected);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("accepts ctx.gitDir as the work tree or its .git folder", async () => {
    const viaRoot = createReviewTools({ ...f.ctx, gitDir: f.root });
    expect((await runToolCall(viaRoot, "get_git_log", {})).text).toContain("2 commits");
    expect(
      execFileSync("git", ["--git-dir", path.join(f.root, ".git"), "rev-parse", "HEAD"], { encoding: "utf8" }).trim(),
    ).toBe(f.commits.second);
  });
});
