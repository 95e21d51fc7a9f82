import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changedRanges, inScope, matcherFor, resolveScope } from "./scope.ts";

let repo: string;
const git = (...args: string[]) =>
  execFileSync("git", ["-C", repo, "-c", "user.email=t@example.test", "-c", "user.name=T", ...args], { stdio: "pipe" });

beforeAll(() => {
  repo = mkdtempSync(path.join(os.tmpdir(), "argus-scope-"));
  git("init", "-q", "-b", "main");
  writeFileSync(path.join(repo, "café.ts"), "a\nb\nc\n");
  writeFileSync(path.join(repo, "plain.ts"), "1\n2\n3\n");
  git("add", ".");
  git("commit", "-qm", "one");
  git("tag", "v1");
  writeFileSync(path.join(repo, "café.ts"), "a\nB\nc\n");
  writeFileSync(path.join(repo, "plain.ts"), "1\n2\n3\n4\n");
  git("commit", "-qam", "two");
});
afterAll(() => rmSync(repo, { recursive: true, force: true }));

describe("review scopes", () => {
  it("paths: files, folders and globs", () => {
    const match = matcherFor(["src", "lib/*.py", "./docs/"]);
    expect(["src/a.ts", "src/x/y.ts", "lib/m.py", "lib/x/m.py", "docs/r.md", "srcx/a.ts"].filter(match)).toEqual([
      "src/a.ts",
      "src/x/y.ts",
      "lib/m.py",
      "docs/r.md",
    ]);
  });

  it("diff: changed files with their changed lines, non-ASCII names included", async () => {
    const scope = await resolveScope(
      { kind: "diff", base: "v1", head: "HEAD" },
      { root: repo, files: ["café.ts", "plain.ts", "other.ts"] },
    );
    expect(scope.files.sort()).toEqual(["café.ts", "plain.ts"]);
    expect(scope.hunks!.get("café.ts")).toEqual([[2, 2]]);
    expect(scope.hunks!.get("plain.ts")).toEqual([[4, 4]]);
    expect(inScope(scope, { file: "café.ts", startLine: 2, endLine: 2 })).toBe(true);
    expect(inScope(scope, { file: "café.ts", startLine: 3, endLine: 3 })).toBe(false);
  });

  it("diff: an unknown ref is a clear refusal", async () => {
    await expect(resolveScope({ kind: "diff", base: "nope", head: "HEAD" }, { root: repo, files: [] })).rejects.toThrow(
      /Cannot diff nope\.\.HEAD/,
    );
  });

  it("parses hunk headers, skipping deletions and pure removals", () => {
    const patch = [
      "+++ b/x.ts",
      "@@ -1,2 +1,3 @@",
      "@@ -10 +11 @@",
      "@@ -20,3 +22,0 @@",
      "+++ /dev/null",
      "@@ -1 +0,0 @@",
    ].join("\n");
    expect(changedRanges(patch)).toEqual(
      new Map([
        [
          "x.ts",
          [
            [1, 3],
            [11, 11],
          ],
        ],
      ]),
    );
  });
});
