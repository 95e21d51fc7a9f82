import { lstat, mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildZip, writeZip, type ZipEntrySpec } from "../../../test/helpers/zip.ts";
import { IngestError } from "./errors.ts";
import type { IngestProgress } from "./progress.ts";
import { expectRefusal, sandbox, type Sandbox } from "./test-support.ts";
import { ingestZip } from "./zip.ts";

let sb: Sandbox;
beforeEach(async () => {
  sb = await sandbox();
});
afterEach(async () => {
  await sb.cleanup();
});

const zipFile = (entries: ZipEntrySpec[], name = "upload.zip") => writeZip(path.join(sb.dir, "inputs", name), entries);
const MiB = 1024 * 1024;

describe("ingestZip", () => {
  it("extracts a GitHub-style archive: strips the top folder, applies ignores and nested .gitignore, drops symlinks", async () => {
    const zip = await zipFile([
      { name: "repo-main/" },
      { name: "repo-main/src/app.ts", data: "export const a = 1;\n" },
      { name: "repo-main/README.md", data: "# Hi\n", method: "store" },
      { name: "repo-main/src/.gitignore", data: "generated/\n" },
      { name: "repo-main/src/generated/out.ts", data: "x\n" },
      { name: "repo-main/node_modules/left-pad/index.js", data: "module.exports = 1;\n" },
      { name: "repo-main/.env", data: "SECRET=1\n" },
      { name: "repo-main/link-in", data: "src/app.ts", mode: 0o120777 },
      { name: "repo-main/bin/run", data: "#!/usr/bin/env python3\nprint(1)\n", mode: 0o100755 },
    ]);
    const progress: IngestProgress[] = [];
    const summary = await ingestZip({ zipPath: zip, dest: sb.dest, onProgress: (p) => progress.push(p) });

    expect(summary.dest).toBe(sb.dest);
    expect(summary.strippedPrefix).toBe("repo-main");
    expect(summary.walk.files.map((f) => [f.path, f.language])).toEqual([
      ["README.md", "markdown"],
      ["bin/run", "python"],
      ["src/.gitignore", "text"],
      ["src/app.ts", "typescript"],
    ]);
    expect(summary.writtenFiles).toBe(4);
    expect(summary.dropped).toEqual(
      expect.arrayContaining([
        { path: "repo-main/src/generated/out.ts", reason: "ignored" },
        { path: "repo-main/node_modules/left-pad/index.js", reason: "ignored" },
        { path: "repo-main/.env", reason: "ignored" },
        { path: "repo-main/link-in", reason: "symlink" },
      ]),
    );
    expect(await readFile(path.join(sb.dest, "src/app.ts"), "utf8")).toBe("export const a = 1;\n");
    // Execute bits are not carried over.
    expect((await lstat(path.join(sb.dest, "bin/run"))).mode & 0o111).toBe(0);
    expect(summary.languages.typescript).toEqual({ files: 1, lines: 1, bytes: 20 });
    expect(progress.map((p) => p.phase)).toEqual(
      expect.arrayContaining(["scanning", "extracting", "indexing", "done"]),
    );
    // Only the snapshot is left: no staging directory beside it.
    expect(await readdir(path.dirname(sb.dest))).toEqual(["snap-1"]);
  });

  it("refuses zip-slip entries without writing anything", async () => {
    const target = sb.escapeTargets[0]!;
    const climb = "../".repeat(20) + target.slice(1);
    const zip = await zipFile([
      { name: "ok.ts", data: "ok\n" },
      { name: climb, data: "pwned\n" },
    ]);
    const err = await expectRefusal(sb, () => ingestZip({ zipPath: zip, dest: sb.dest }), "unsafe_path", /climbs out/);
    expect(err.message).toContain("archive entry");

    const sibling = await zipFile([{ name: "a/../../outside/pwned.txt", data: "x" }], "sibling.zip");
    await expectRefusal(sb, () => ingestZip({ zipPath: sibling, dest: sb.dest }), "unsafe_path");
    const backslash = await zipFile([{ name: "..\\..\\outside\\pwned.txt", data: "x" }], "backslash.zip");
    await expectRefusal(sb, () => ingestZip({ zipPath: backslash, dest: sb.dest }), "unsafe_path");
  });

  it("refuses absolute entries (unix and Windows drive)", async () => {
    const abs = await zipFile([{ name: sb.escapeTargets[0]!, data: "x" }]);
    await expectRefusal(sb, () => ingestZip({ zipPath: abs, dest: sb.dest }), "unsafe_path", /absolute path/);
    const drive = await zipFile([{ name: "C:/Windows/evil.txt", data: "x" }], "drive.zip");
    await expectRefusal(sb, () => ingestZip({ zipPath: drive, dest: sb.dest }), "unsafe_path", /absolute path/);
  });

  it("never materialises archive symlinks, so a link out of the root can't be written through", async () => {
    const zip = await zipFile([
      { name: "escape", data: sb.outside, mode: 0o120777 },
      { name: "escape/pwned.txt", data: "pwned\n" },
      { name: "passwd", data: "/etc/passwd", mode: 0o120777 },
      { name: "main.py", data: "print(1)\n" },
    ]);
    const summary = await ingestZip({ zipPath: zip, dest: sb.dest });
    expect(summary.dropped).toEqual(
      expect.arrayContaining([
        { path: "escape", reason: "symlink" },
        { path: "passwd", reason: "symlink" },
      ]),
    );
    // "escape" became an ordinary folder inside the snapshot; the outside folder is untouched.
    expect((await lstat(path.join(sb.dest, "escape"))).isDirectory()).toBe(true);
    expect(await readdir(sb.outside)).toEqual(["sentinel.txt"]);
    await expect(lstat(path.join(sb.dest, "passwd"))).rejects.toThrow();
  });

  it("refuses a zip bomb by its compression ratio before writing", async () => {
    const zip = await zipFile([{ name: "bomb.txt", data: Buffer.alloc(20 * MiB, 0x20) }]);
    await expectRefusal(
      sb,
      () => ingestZip({ zipPath: zip, dest: sb.dest }),
      "cap_ratio",
      /expands \d+:1, over the compression-ratio cap \(100:1; INGEST_MAX_COMPRESSION_RATIO\).*zip bomb/,
    );
  });

  it("refuses an archive whose many small entries expand too far overall (whole-archive ratio)", async () => {
    const entries = Array.from({ length: 24 }, (_, i) => ({ name: `f${i}.txt`, data: Buffer.alloc(512 * 1024, 0x61) }));
    const zip = await zipFile(entries);
    await expectRefusal(sb, () => ingestZip({ zipPath: zip, dest: sb.dest }), "cap_ratio", /The archive expands/);
  });

  it("refuses an archive over the total-size cap", async () => {
    const entries = Array.from({ length: 6 }, (_, i) => ({ name: `f${i}.txt`, data: Buffer.alloc(MiB, 0x61) }));
    const zip = await zipFile(entries);
    await expectRefusal(
      sb,
      () => ingestZip({ zipPath: zip, dest: sb.dest, limits: { maxTotalBytes: 5 * MiB, maxCompressionRatio: 1e6 } }),
      "cap_total_bytes",
      /5 MB.*INGEST_MAX_TOTAL_MB/,
    );
  });

  it("refuses over the file-count, single-file and entry caps, naming each", async () => {
    const five = await zipFile(Array.from({ length: 5 }, (_, i) => ({ name: `f${i}.ts`, data: "x\n" })));
    await expectRefusal(
      sb,
      () => ingestZip({ zipPath: five, dest: sb.dest, limits: { maxFiles: 3 } }),
      "cap_files",
      /INGEST_MAX_FILES/,
    );
    await expectRefusal(
      sb,
      () => ingestZip({ zipPath: five, dest: sb.dest, limits: { maxArchiveEntries: 4 } }),
      "cap_archive_entries",
      /INGEST_MAX_ARCHIVE_ENTRIES/,
    );
    const big = await zipFile([{ name: "big.ts", data: "x".repeat(2000) }], "big.zip");
    await expectRefusal(
      sb,
      () => ingestZip({ zipPath: big, dest: sb.dest, limits: { maxFileBytes: 1000 } }),
      "cap_file_bytes",
      /"big.ts".*INGEST_MAX_FILE_MB/,
    );
  });

  it("gives specific errors for a corrupt zip, a truncated zip and a bad checksum", async () => {
    const good = buildZip([
      { name: "a.ts", data: "export const a = 1;\n".repeat(50) },
      { name: "b.ts", data: "b\n" },
    ]);
    const truncated = path.join(sb.dir, "inputs", "truncated.zip");
    await writeFile(truncated, good.subarray(0, Math.floor(good.length / 2)));
    await expectRefusal(
      sb,
      () => ingestZip({ zipPath: truncated, dest: sb.dest }),
      "corrupt_archive",
      /corrupt or truncated/,
    );

    const mangled = Buffer.from(good);
    for (let i = 40; i < 60; i++) mangled[i] = 0xff; // inside a.ts's deflate stream
    const mangledPath = path.join(sb.dir, "inputs", "mangled.zip");
    await writeFile(mangledPath, mangled);
    await expectRefusal(sb, () => ingestZip({ zipPath: mangledPath, dest: sb.dest }), "corrupt_archive");

    const badCrc = await zipFile([{ name: "a.ts", data: "a\n", crc: 1234 }], "crc.zip");
    await expectRefusal(sb, () => ingestZip({ zipPath: badCrc, dest: sb.dest }), "corrupt_archive", /checksum/);
  });

  it("recognises a tarball (gzip or plain tar) renamed .zip", async () => {
    const tgz = path.join(sb.dir, "inputs", "project.zip");
    await writeFile(tgz, gzipSync(Buffer.alloc(1024)));
    await expectRefusal(sb, () => ingestZip({ zipPath: tgz, dest: sb.dest }), "not_a_zip", /gzip/);
    const header = Buffer.alloc(1024);
    header.write("src/a.ts", 0);
    header.write("ustar", 257);
    const tar = path.join(sb.dir, "inputs", "plain.zip");
    await writeFile(tar, header);
    await expectRefusal(sb, () => ingestZip({ zipPath: tar, dest: sb.dest }), "not_a_zip", /tar archive/);
    const text = path.join(sb.dir, "inputs", "notes.zip");
    await writeFile(text, "just some text\n");
    await expectRefusal(sb, () => ingestZip({ zipPath: text, dest: sb.dest }), "not_a_zip", /not a zip/);
  });

  it("refuses empty uploads: 0 bytes, an archive with no entries, only ignored or only binary files", async () => {
    const zero = path.join(sb.dir, "inputs", "zero.zip");
    await writeFile(zero, "");
    await expectRefusal(sb, () => ingestZip({ zipPath: zero, dest: sb.dest }), "empty", /0 bytes/);
    const none = await zipFile([], "none.zip");
    await expectRefusal(sb, () => ingestZip({ zipPath: none, dest: sb.dest }), "empty", /empty/);
    const dirsOnly = await zipFile([{ name: "a/" }, { name: "a/b/" }], "dirs.zip");
    await expectRefusal(sb, () => ingestZip({ zipPath: dirsOnly, dest: sb.dest }), "empty", /no files/);
    const ignored = await zipFile(
      [
        { name: "node_modules/x.js", data: "x" },
        { name: "logo.png", data: "png" },
      ],
      "ignored.zip",
    );
    await expectRefusal(sb, () => ingestZip({ zipPath: ignored, dest: sb.dest }), "empty", /all 2 entries/);
    const binary = await zipFile(
      [
        { name: "blob.bin", data: Buffer.from([0, 1, 2, 3, 0, 255]) },
        { name: "model.weights", data: Buffer.alloc(100) },
      ],
      "binary.zip",
    );
    await expectRefusal(sb, () => ingestZip({ zipPath: binary, dest: sb.dest }), "no_text_files", /all binary/);
  });

  it("refuses encrypted entries, unknown compression and duplicate names", async () => {
    const enc = await zipFile([{ name: "a.ts", data: "a", encrypted: true }]);
    await expectRefusal(sb, () => ingestZip({ zipPath: enc, dest: sb.dest }), "unsupported_entry", /password/);
    const bzip = await zipFile([{ name: "a.ts", data: "a", rawMethod: 12 }], "bzip.zip");
    await expectRefusal(sb, () => ingestZip({ zipPath: bzip, dest: sb.dest }), "unsupported_entry", /method 12/);
    const dup = await zipFile(
      [
        { name: "a.ts", data: "a" },
        { name: "./a.ts", data: "b" },
      ],
      "dup.zip",
    );
    await expectRefusal(sb, () => ingestZip({ zipPath: dup, dest: sb.dest }), "path_conflict", /twice/);
  });

  it("refuses to replace an existing snapshot", async () => {
    await mkdir(sb.dest);
    const zip = await zipFile([{ name: "a.ts", data: "a\n" }]);
    const err = await ingestZip({ zipPath: zip, dest: sb.dest }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IngestError);
    expect((err as IngestError).code).toBe("destination_exists");
    expect((err as IngestError).kind).toBe("conflict");
  });
});
