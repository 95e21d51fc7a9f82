import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createIgnoreMatcher } from "./filters.ts";
import { looksMinified, walk } from "./walker.ts";

let root: string;
let outside: string;
beforeEach(async () => {
  const base = await mkdtemp(path.join(os.tmpdir(), "argus-walker-"));
  root = path.join(base, "root");
  outside = path.join(base, "outside");
  await mkdir(root);
  await mkdir(outside);
  await writeFile(path.join(outside, "secret.ts"), "export const secret = 1;\n");
});
afterEach(async () => {
  await rm(path.dirname(root), { recursive: true, force: true });
});

const put = async (rel: string, content: string | Buffer) => {
  await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
  await writeFile(path.join(root, rel), content);
};

describe("walk", () => {
  it("lists text files with posix paths, size, language and lines, in name order", async () => {
    await put("src/b.py", "x = 1\ny = 2\n");
    await put("src/a.ts", "export {};");
    await put("empty.txt", "");
    await put("scripts/run", "#!/usr/bin/env node\nconsole.log(1)\n");
    await put("Dockerfile", "FROM scratch\n");
    const r = await walk(root);
    expect(r.files).toEqual([
      { path: "Dockerfile", size: 13, language: "dockerfile", lines: 1 },
      { path: "empty.txt", size: 0, language: "text", lines: 0 },
      { path: "scripts/run", size: 35, language: "javascript", lines: 2 },
      { path: "src/a.ts", size: 10, language: "typescript", lines: 1 },
      { path: "src/b.py", size: 12, language: "python", lines: 2 },
    ]);
    expect(r.truncated).toBe(false);
    expect(r.skipped).toEqual([]);
  });

  it("skips with a reason: binary, minified (a 10 MB single line), too large; keeps invalid UTF-8 flagged", async () => {
    await put("img.dat", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
    await put("huge.js", Buffer.alloc(10 * 1024 * 1024, 0x61));
    await put("bundle.js", `${"var a=1;".repeat(1000)}\n`);
    await put("big.sql", "select 1;\n".repeat(200_000)); // 2 MB of ordinary lines
    await put("latin1.py", Buffer.from("# caf\xe9\nx = 1\n", "latin1"));
    await put("ok.ts", "ok\n");
    const r = await walk(root);
    expect(r.files).toEqual([
      { path: "latin1.py", size: 13, language: "python", lines: 2, utf8: false },
      { path: "ok.ts", size: 3, language: "typescript", lines: 1 },
    ]);
    expect(r.skipped).toEqual([
      { path: "big.sql", reason: "too_large", size: 2_000_000 },
      { path: "bundle.js", reason: "minified", size: 8001 },
      { path: "huge.js", reason: "minified", size: 10 * 1024 * 1024 },
      { path: "img.dat", reason: "binary", size: 8 },
    ]);
    expect(r.skippedCounts).toEqual({ too_large: 1, minified: 2, binary: 1 });
    // With a bigger cap the 2 MB file is indexed.
    expect((await walk(root, { maxFileBytes: 4 * 1024 * 1024 })).files.map((f) => f.path)).toContain("big.sql");
  });

  it("does not take long prose or one long line in ordinary code for minified", () => {
    const prose = Buffer.from(Array.from({ length: 20 }, () => "word ".repeat(200)).join("\n"));
    expect(looksMinified(prose)).toBe(false); // 1000-char lines: paragraphs, not bundles
    const code = Buffer.from(`${"const x = 1;\n".repeat(2000)}const img = "${"A".repeat(20_000)}";\n`);
    expect(looksMinified(code)).toBe(false);
    expect(looksMinified(Buffer.alloc(64 * 1024, 0x61))).toBe(true);
  });

  it("never follows symlinks (inside or out) and never opens FIFOs", async () => {
    await put("real.ts", "x\n");
    await symlink(outside, path.join(root, "out-dir"));
    await symlink(path.join(outside, "secret.ts"), path.join(root, "out-file.ts"));
    await symlink("real.ts", path.join(root, "in-link.ts"));
    let fifo = false;
    try {
      execFileSync("mkfifo", [path.join(root, "pipe")]);
      fifo = true;
    } catch {
      // no mkfifo here
    }
    const r = await walk(root);
    expect(r.files.map((f) => f.path)).toEqual(["real.ts"]);
    expect(r.skipped).toEqual([
      { path: "in-link.ts", reason: "symlink" },
      { path: "out-dir", reason: "symlink" },
      { path: "out-file.ts", reason: "symlink" },
      ...(fifo ? [{ path: "pipe", reason: "special" }] : []),
    ]);
  });

  it("honours DEFAULT_IGNORES and nested .gitignore files, reporting top-most ignored paths", async () => {
    await put("node_modules/a/index.js", "x");
    await put(".gitignore", "*.log\n");
    await put("pkg/.gitignore", "gen/\n!keep.log\n");
    await put("pkg/gen/x.ts", "x");
    await put("pkg/keep.log", "kept\n");
    await put("pkg/drop.log", "dropped\n");
    await put("pkg/index.ts", "x\n");
    const r = await walk(root);
    expect(r.files.map((f) => f.path)).toEqual([".gitignore", "pkg/.gitignore", "pkg/index.ts", "pkg/keep.log"]);
    expect(r.ignored).toEqual(["node_modules/", "pkg/drop.log", "pkg/gen/"]);
    expect(r.ignoredCount).toBe(3);
    // The same matcher object can be passed in (and shared with agent tools).
    const matcher = createIgnoreMatcher({ root, extraPatterns: ["pkg/"] });
    expect((await walk(root, { matcher })).files.map((f) => f.path)).toEqual([".gitignore"]);
  });

  it("stops listing at maxFiles and reports the rest as file_cap skips", async () => {
    await Promise.all(Array.from({ length: 300 }, (_, i) => put(`f/${String(i).padStart(3, "0")}.ts`, "x\n")));
    const r = await walk(root, { maxFiles: 100 });
    expect(r.files).toHaveLength(100);
    expect(r.truncated).toBe(true);
    expect(r.skippedCounts.file_cap).toBe(200);
    expect(r.files.at(-1)?.path).toBe("f/099.ts");
  });

  it("can be aborted", async () => {
    await put("a.ts", "x\n");
    const ac = new AbortController();
    ac.abort();
    await expect(walk(root, { signal: ac.signal })).rejects.toThrow();
  });
});
