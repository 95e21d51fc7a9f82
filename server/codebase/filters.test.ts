import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createIgnoreMatcher, DEFAULT_IGNORES } from "./filters.ts";

const fromMap = (map: Record<string, string>) => createIgnoreMatcher({ readGitignore: (dir) => map[dir] });

describe("DEFAULT_IGNORES", () => {
  const m = createIgnoreMatcher();
  it("covers deps, build output, caches, editor/VCS dirs, lockfiles, secrets, minified files and binary assets", () => {
    const ignored = [
      "node_modules/left-pad/index.js",
      "packages/a/node_modules/",
      ".venv/lib/x.py",
      "a/__pycache__/m.pyc",
      "vendor/github.com/x.go",
      "dist/app.js",
      "build/",
      "target/debug/app",
      "out/",
      ".next/cache/x",
      "coverage/lcov.info",
      "__snapshots__/a.snap",
      ".pytest_cache/",
      ".git/config",
      ".git",
      "sub/.git",
      ".idea/workspace.xml",
      ".vscode/settings.json",
      ".DS_Store",
      "package-lock.json",
      "web/pnpm-lock.yaml",
      "yarn.lock",
      "Cargo.lock",
      "go.sum",
      "poetry.lock",
      ".env",
      ".env.local",
      "config/.env.production",
      "public/app.min.js",
      "styles.min.css",
      "app.js.map",
      "logo.png",
      "photo.JPG",
      "font.woff2",
      "release.zip",
      "movie.mp4",
      "doc.pdf",
      "data.sqlite",
    ];
    for (const p of ignored) expect(m.ignores(p), p).toBe(true);
    const kept = [
      "src/index.ts",
      "README.md",
      ".env.example",
      "package.json",
      "src/build.ts",
      "docs/out.md",
      "bin/argus.mjs",
      ".gitignore",
      "app.js",
    ];
    for (const p of kept) expect(m.ignores(p), p).toBe(false);
    expect(DEFAULT_IGNORES).toContain("node_modules/");
  });

  it("treats a directory pattern as a directory only", () => {
    expect(m.ignores("dist", false)).toBe(false); // a file named "dist"
    expect(m.ignores("dist", true)).toBe(true);
    expect(m.ignores("dist/")).toBe(true);
  });

  it("fails closed on paths that are not contained relative paths", () => {
    expect(m.ignores("../etc/passwd")).toBe(true);
    expect(m.ignores("/etc/passwd")).toBe(true);
    expect(m.ignores("a\0b")).toBe(true);
    expect(m.ignores("./src/../../x")).toBe(true);
    expect(m.ignores("./src/index.ts")).toBe(false);
  });
});

describe("nested .gitignore", () => {
  it("applies each file to its own directory, relative to it; deeper files win", () => {
    const m = fromMap({
      "": "*.log\n/only-root.txt\nsecret/\n",
      sub: "!keep.log\nlocal/\n/anchored.txt\n",
      secret: "!inside.txt\n",
    });
    expect(m.ignores("a.log")).toBe(true);
    expect(m.ignores("x/y/a.log")).toBe(true);
    expect(m.ignores("sub/keep.log")).toBe(false); // re-included by the deeper file
    expect(m.ignores("keep.log")).toBe(true);
    expect(m.ignores("only-root.txt")).toBe(true);
    expect(m.ignores("sub/only-root.txt")).toBe(false);
    expect(m.ignores("sub/anchored.txt")).toBe(true);
    expect(m.ignores("sub/deeper/anchored.txt")).toBe(false);
    expect(m.ignores("sub/local/x.ts")).toBe(true);
    expect(m.ignores("local/x.ts")).toBe(false);
    // Inside an ignored directory nothing can be re-included (as in git).
    expect(m.ignores("secret/inside.txt")).toBe(true);
  });

  it("can't re-include what DEFAULT_IGNORES excludes", () => {
    const m = fromMap({ "": "!node_modules/\n!.env\n" });
    expect(m.ignores("node_modules/x.js")).toBe(true);
    expect(m.ignores(".env")).toBe(true);
  });

  it("matches .gitignore patterns case-sensitively, defaults case-insensitively", () => {
    const m = fromMap({ "": "*.LOG\n" });
    expect(m.ignores("a.log")).toBe(false);
    expect(m.ignores("a.LOG")).toBe(true);
    expect(m.ignores("Node_Modules/x.js")).toBe(true);
  });

  it("explains which rule decided", () => {
    const m = fromMap({ src: "gen/\n" });
    expect(m.explain("src/gen/a.ts")).toEqual({
      ignored: true,
      source: "src/.gitignore",
      pattern: "gen/",
      via: "src/gen/",
    });
    expect(m.explain("node_modules/a/b.js")).toEqual({
      ignored: true,
      source: "default",
      pattern: "node_modules/",
      via: "node_modules/",
    });
    expect(m.explain("src/a.ts")).toEqual({ ignored: false });
  });

  it("honours gitignore: false and extra patterns", () => {
    const m = createIgnoreMatcher({ readGitignore: () => "*.ts\n", gitignore: false, extraPatterns: ["fixtures/"] });
    expect(m.ignores("a.ts")).toBe(false);
    expect(m.ignores("test/fixtures/x.py")).toBe(true);
  });
});

describe("reading .gitignore from disk", () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "argus-filters-"));
    await mkdir(path.join(root, "a"));
    await writeFile(path.join(root, ".gitignore"), "*.tmp\n");
    await writeFile(path.join(root, "elsewhere.txt"), "*.ts\n");
    // A symlinked .gitignore is never read: it could point anywhere on the host.
    await symlink(path.join(root, "elsewhere.txt"), path.join(root, "a", ".gitignore"));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("reads regular .gitignore files lazily and ignores symlinked ones", () => {
    const m = createIgnoreMatcher({ root });
    expect(m.ignores("x.tmp")).toBe(true);
    expect(m.ignores("a/x.tmp")).toBe(true);
    expect(m.ignores("a/x.ts")).toBe(false);
  });
});
