import { execFileSync } from "node:child_process";
import { lstat, mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ingestPath } from "./path.ts";
import { expectRefusal, sandbox, type Sandbox } from "./test-support.ts";

let sb: Sandbox;
let src: string;
beforeEach(async () => {
  sb = await sandbox();
  src = path.join(sb.dir, "inputs", "project");
  await mkdir(path.join(src, "src/gen"), { recursive: true });
  await mkdir(path.join(src, "node_modules/dep"), { recursive: true });
  await writeFile(path.join(src, "src/index.ts"), "export {};\n");
  await writeFile(path.join(src, "src/.gitignore"), "gen/\n");
  await writeFile(path.join(src, "src/gen/out.ts"), "generated\n");
  await writeFile(path.join(src, "node_modules/dep/index.js"), "x\n");
  await writeFile(path.join(src, "Makefile"), "all:\n\techo hi\n");
});
afterEach(async () => {
  await sb.cleanup();
});

describe("ingestPath", () => {
  it("copies a server folder with the same ignore rules, never following or copying symlinks", async () => {
    await symlink(sb.outside, path.join(src, "escape-dir"));
    await symlink("/etc/passwd", path.join(src, "passwd"));
    await symlink("src/index.ts", path.join(src, "inner-link.ts"));
    let fifo = false;
    try {
      execFileSync("mkfifo", [path.join(src, "pipe")]);
      fifo = true;
    } catch {
      // no mkfifo on this host: the FIFO case is skipped
    }
    const summary = await ingestPath({ sourcePath: src, dest: sb.dest });
    expect(summary.walk.files.map((f) => [f.path, f.language])).toEqual([
      ["Makefile", "makefile"],
      ["src/.gitignore", "text"],
      ["src/index.ts", "typescript"],
    ]);
    expect(summary.dropped).toEqual(
      expect.arrayContaining([
        { path: "escape-dir", reason: "symlink" },
        { path: "passwd", reason: "symlink" },
        { path: "inner-link.ts", reason: "symlink" },
        { path: "node_modules/", reason: "ignored" },
        { path: "src/gen/", reason: "ignored" },
        ...(fifo ? [{ path: "pipe", reason: "special" }] : []),
      ]),
    );
    expect((await readdir(sb.dest)).sort()).toEqual(["Makefile", "src"]);
    expect(await readFile(path.join(sb.dest, "src/index.ts"), "utf8")).toBe("export {};\n");
    expect(await readdir(sb.outside)).toEqual(["sentinel.txt"]);
  });

  it("follows the given path itself when it is a symlink to the project (the owner's choice)", async () => {
    const link = path.join(sb.dir, "inputs", "project-link");
    await symlink(src, link);
    const summary = await ingestPath({ sourcePath: link, dest: sb.dest });
    expect(summary.walk.files).toHaveLength(3);
    expect((await lstat(sb.dest)).isDirectory()).toBe(true);
  });

  it("refuses relative, missing and file paths, and a source that holds the snapshot directory", async () => {
    await expectRefusal(
      sb,
      () => ingestPath({ sourcePath: "inputs/project", dest: sb.dest }),
      "source_not_found",
      /absolute path/,
    );
    await expectRefusal(
      sb,
      () => ingestPath({ sourcePath: path.join(sb.dir, "nope"), dest: sb.dest }),
      "source_not_found",
      /no folder/,
    );
    await expectRefusal(
      sb,
      () => ingestPath({ sourcePath: path.join(src, "Makefile"), dest: sb.dest }),
      "source_not_found",
      /is a file/,
    );
    await expectRefusal(sb, () => ingestPath({ sourcePath: sb.dir, dest: sb.dest }), "unsafe_path", /snapshots inside/);
  });

  it("refuses over the caps", async () => {
    await expectRefusal(
      sb,
      () => ingestPath({ sourcePath: src, dest: sb.dest, limits: { maxFiles: 2 } }),
      "cap_files",
      /INGEST_MAX_FILES/,
    );
    await writeFile(path.join(src, "big.sql"), "x".repeat(3000));
    await expectRefusal(
      sb,
      () => ingestPath({ sourcePath: src, dest: sb.dest, limits: { maxFileBytes: 2048 } }),
      "cap_file_bytes",
      /"big.sql"/,
    );
  });

  it("refuses a folder with only binary files", async () => {
    const bin = path.join(sb.dir, "inputs", "bin");
    await mkdir(bin);
    await writeFile(path.join(bin, "a.out"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0]));
    await expectRefusal(sb, () => ingestPath({ sourcePath: bin, dest: sb.dest }), "no_text_files", /all binary/);
  });
});
