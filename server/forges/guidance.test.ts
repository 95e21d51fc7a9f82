import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_FILE_BYTES, MAX_INSTRUCTIONS_BYTES, reviewInstructions } from "./guidance.ts";
import { parseRepoRules } from "./repo-rules.ts";
import { selectReviewed } from "./selection.ts";

let dir = "";
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the repository's guidance for the agent", () => {
  it("takes .argus.yaml's instructions and the guidance files, bounded, and no symlink out of the tree", async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "argus-guidance-"));
    const outside = await mkdtemp(path.join(os.tmpdir(), "argus-outside-"));
    await writeFile(path.join(outside, "secret.md"), "TOP SECRET");
    await writeFile(path.join(dir, "AGENTS.md"), "Use tabs.\n");
    await mkdir(path.join(dir, ".github"));
    await writeFile(path.join(dir, ".github", "copilot-instructions.md"), "x".repeat(MAX_FILE_BYTES * 2));
    await mkdir(path.join(dir, ".cursor"));
    await symlink(path.join(outside, "secret.md"), path.join(dir, ".cursor", "BUGBOT.md"));
    const { text, sources } = await reviewInstructions(dir, "Money is in cents.");
    expect(sources).toEqual([".argus.yaml", "AGENTS.md", ".github/copilot-instructions.md"]);
    expect(text).toContain("Money is in cents.");
    expect(text).toContain("### AGENTS.md\n\nUse tabs.");
    expect(text).toContain(`### .github/copilot-instructions.md (first ${MAX_FILE_BYTES / 1024} KB)`);
    expect(text).not.toContain("TOP SECRET");
    expect(Buffer.byteLength(text!)).toBeLessThanOrEqual(MAX_INSTRUCTIONS_BYTES);
    await rm(outside, { recursive: true, force: true });
  });

  it("is nothing when the repository has none", async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "argus-guidance-"));
    expect(await reviewInstructions(dir, null)).toEqual({ text: null, sources: [] });
  });

  it(".argus.yaml says the engine, the instructions and the limits", () => {
    const { rules, problems } = parseRepoRules(
      "engine: static\ninstructions: Be strict.\nmax_files: 2\nmax_lines: 10\n",
    );
    expect(problems).toEqual([]);
    expect(rules).toMatchObject({ engine: "static", instructions: "Be strict.", maxFiles: 2, maxLines: 10 });
    expect(parseRepoRules("engine: gpt\n").problems[0]).toMatch(/line 1: engine/);
  });
});

describe("a huge pull request", () => {
  it("is reviewed on its first files within max_files and max_lines; the rest are listed", () => {
    const patch = (n: number) => `@@ -0,0 +1,${n} @@\n${"+x\n".repeat(n)}`;
    const diff = [
      { path: "a.py", status: "added" as const, patch: patch(5) },
      { path: "b.py", status: "added" as const, patch: patch(5) },
      { path: "c.py", status: "added" as const, patch: patch(50) },
      { path: "d.py", status: "added" as const, patch: patch(1) },
    ];
    const paths = diff.map((f) => f.path);
    expect(selectReviewed(diff, paths, { maxFiles: 2, maxLines: 1000 })).toEqual({
      reviewed: ["a.py", "b.py"],
      skipped: ["c.py", "d.py"],
    });
    expect(selectReviewed(diff, paths, { maxFiles: 10, maxLines: 20 })).toEqual({
      reviewed: ["a.py", "b.py", "d.py"],
      skipped: ["c.py"],
    });
  });
});
