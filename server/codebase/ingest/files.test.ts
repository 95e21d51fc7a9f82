import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ingestFiles, type UploadedFile } from "./files.ts";
import { ingestFolder } from "./folder.ts";
import { expectRefusal, sandbox, type Sandbox } from "./test-support.ts";

let sb: Sandbox;
beforeEach(async () => {
  sb = await sandbox();
});
afterEach(async () => {
  await sb.cleanup();
});

const text = (relativePath: string, s: string): UploadedFile => ({ relativePath, content: Buffer.from(s) });
/** Streamed in small chunks, as a multipart parser would hand them over. */
const streamed = (relativePath: string, data: Buffer): UploadedFile => ({
  relativePath,
  content: Readable.from(
    (function* () {
      for (let i = 0; i < data.length; i += 1000) yield data.subarray(i, i + 1000);
    })(),
  ),
});
async function* slowly(files: UploadedFile[]): AsyncGenerator<UploadedFile> {
  for (const f of files) {
    await new Promise((r) => setImmediate(r));
    yield f;
  }
}

describe("ingestFiles / ingestFolder", () => {
  it("keeps relative paths of uploaded files, streams content and drops ignored ones", async () => {
    const summary = await ingestFiles({
      dest: sb.dest,
      files: slowly([
        text("src/main.go", "package main\n\nfunc main() {}\n"),
        streamed("src/lib/util.rs", Buffer.from("fn a() {}\n".repeat(500))),
        text("node_modules/x/index.js", "x"),
        text(".env.local", "TOKEN=1"),
        text(".env.example", "TOKEN=\n"),
        text("Dockerfile", "FROM node:20\n"),
      ]),
    });
    expect(summary.source).toBe("files");
    expect(summary.strippedPrefix).toBeUndefined();
    expect(summary.walk.files.map((f) => `${f.path}:${f.language}:${f.lines}`)).toEqual([
      ".env.example:text:1",
      "Dockerfile:dockerfile:1",
      "src/lib/util.rs:rust:500",
      "src/main.go:go:3",
    ]);
    expect(summary.dropped).toEqual([
      { path: "node_modules/x/index.js", reason: "ignored" },
      { path: ".env.local", reason: "ignored" },
    ]);
    expect(summary.writtenBytes).toBe(29 + 5000 + 7 + 13);
    expect(await readFile(path.join(sb.dest, "src/lib/util.rs"), "utf8")).toHaveLength(5000);
  });

  it("a folder upload strips the picked folder's name; the project's .gitignore applies when read", async () => {
    const summary = await ingestFolder({
      dest: sb.dest,
      files: [
        text("my-app/.gitignore", "*.log\n"),
        text("my-app/app.py", "#!/usr/bin/env python3\nprint('hi')\n"),
        text("my-app/debug.log", "noise\n"),
        text("my-app/scripts/deploy", "#!/bin/bash\necho deploy\n"),
      ],
    });
    expect(summary.source).toBe("folder");
    expect(summary.strippedPrefix).toBe("my-app");
    expect(summary.walk.files.map((f) => [f.path, f.language])).toEqual([
      [".gitignore", "text"],
      ["app.py", "python"],
      ["scripts/deploy", "shell"],
    ]);
    expect(summary.walk.ignored).toEqual(["debug.log"]);
    expect((await readdir(sb.dest)).sort()).toEqual([".gitignore", "app.py", "debug.log", "scripts"]);
  });

  it("refuses a path that climbs out, is absolute or holds a NUL — before anything is kept", async () => {
    const target = sb.escapeTargets[0]!;
    for (const bad of [
      "../../outside/pwned.txt",
      "a/../../x",
      "..\\..\\x",
      target,
      "C:\\temp\\x",
      "a\0b",
      "a\nb.ts",
      "",
      "./.",
    ]) {
      await expectRefusal(
        sb,
        () => ingestFiles({ dest: sb.dest, files: [text("ok.ts", "ok\n"), text(bad, "x")] }),
        "unsafe_path",
      );
    }
  });

  it("refuses an empty upload, an all-ignored upload and a binary-only upload", async () => {
    await expectRefusal(sb, () => ingestFiles({ dest: sb.dest, files: [] }), "empty", /contains no files/);
    await expectRefusal(
      sb,
      () => ingestFiles({ dest: sb.dest, files: [text("package-lock.json", "{}"), text("a.min.js", "x")] }),
      "empty",
      /all 2 entries/,
    );
    await expectRefusal(
      sb,
      () =>
        ingestFiles({
          dest: sb.dest,
          files: [
            { relativePath: "a.bin", content: Buffer.from([1, 0, 2]) },
            { relativePath: "b.dat", content: Buffer.alloc(64) },
          ],
        }),
      "no_text_files",
      /all binary/,
    );
  });

  it("refuses over the caps while streaming, naming each cap", async () => {
    await expectRefusal(
      sb,
      () =>
        ingestFiles({
          dest: sb.dest,
          files: [streamed("big.ts", Buffer.alloc(5000, 0x61))],
          limits: { maxFileBytes: 4096 },
        }),
      "cap_file_bytes",
      /"big.ts".*INGEST_MAX_FILE_MB/,
    );
    await expectRefusal(
      sb,
      () =>
        ingestFiles({
          dest: sb.dest,
          files: ["a", "b", "c"].map((n) => text(`${n}.ts`, "x\n")),
          limits: { maxFiles: 2 },
        }),
      "cap_files",
      /INGEST_MAX_FILES/,
    );
    await expectRefusal(
      sb,
      () =>
        ingestFiles({
          dest: sb.dest,
          files: ["a", "b", "c"].map((n) => text(`${n}.ts`, "x".repeat(400))),
          limits: { maxTotalBytes: 1000 },
        }),
      "cap_total_bytes",
      /INGEST_MAX_TOTAL_MB/,
    );
  });

  it("refuses duplicate paths and a path that is both a file and a folder", async () => {
    await expectRefusal(
      sb,
      () => ingestFiles({ dest: sb.dest, files: [text("a.ts", "1"), text("./a.ts", "2")] }),
      "path_conflict",
    );
    await expectRefusal(
      sb,
      () => ingestFiles({ dest: sb.dest, files: [text("a", "1"), text("a/b.ts", "2")] }),
      "path_conflict",
    );
  });

  it("keeps a file that is not valid UTF-8 (lossy, flagged) and skips a 10 MB single-line file as minified", async () => {
    const latin1 = Buffer.from("// caf\xe9 au lait\nint x;\n", "latin1");
    const summary = await ingestFiles({
      dest: sb.dest,
      files: [
        { relativePath: "legacy.c", content: latin1 },
        streamed("bundle.js", Buffer.alloc(10 * 1024 * 1024, 0x61)),
        text("ok.ts", "ok\n"),
      ],
    });
    expect(summary.walk.files.find((f) => f.path === "legacy.c")).toEqual({
      path: "legacy.c",
      size: latin1.length,
      language: "c",
      lines: 2,
      utf8: false,
    });
    expect(summary.walk.skipped).toEqual([{ path: "bundle.js", reason: "minified", size: 10 * 1024 * 1024 }]);
  });

  it("removes everything when aborted", async () => {
    const ac = new AbortController();
    async function* files(): AsyncGenerator<UploadedFile> {
      yield text("a.ts", "a\n");
      ac.abort();
      yield text("b.ts", "b\n");
    }
    await expectRefusal(sb, () => ingestFiles({ dest: sb.dest, files: files(), signal: ac.signal }), "aborted");
  });
});
