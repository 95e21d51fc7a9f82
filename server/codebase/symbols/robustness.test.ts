import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSymbolIndex, openSymbolIndex, type BuildResult } from "./index.ts";
import { runFilePass } from "./pass.ts";
import { MAX_PYTHON_INDENT_LEVELS, parse, pythonIndentLevels } from "../treesitter.ts";

/** Bad input never crashes the pass: each case ends with a status and a note, and the build finishes. */
describe("symbol pass: bad input", () => {
  let root: string;
  let outside: string;
  let built: BuildResult;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), "argus-bad-"));
    outside = mkdtempSync(path.join(os.tmpdir(), "argus-outside-"));
    mkdirSync(path.join(root, "src"));
    const garbage = randomBytes(64 * 1024);
    garbage[10] = 0; // binary
    writeFileSync(path.join(root, "src/garbage.ts"), garbage);
    // Invalid UTF-8 without NUL bytes, around real code.
    writeFileSync(
      path.join(root, "src/latin1.py"),
      Buffer.concat([
        Buffer.from("def ok():\n    return 1\n# caf"),
        Buffer.from([0xe9, 0xff, 0xfe]),
        Buffer.from("\nclass After:\n    pass\n"),
      ]),
    );
    writeFileSync(path.join(root, "src/huge.min.js"), `var a=${"1+".repeat(5 * 1024 * 1024)}1;`); // 10 MB, one line
    // A 1.4 MB line under the size limit: minified, so scanned as text but not parsed (parsing it takes
    // seconds). The key is generated so no key-shaped literal sits in the repository.
    writeFileSync(
      path.join(root, "src/big-line.js"),
      `const x = [${"0,".repeat(700_000)}];var k="AKIA${"Q".repeat(8)}${randomBytes(4).toString("hex").toUpperCase()}";\nfunction after() {}\n`,
    );
    writeFileSync(
      path.join(root, "src/many.ts"),
      Array.from({ length: 20_000 }, (_, i) => `export function f${i}(a: number) { return a + ${i}; }`).join("\n"),
    );
    writeFileSync(
      path.join(root, "src/broken.ts"),
      "export function good() { return 1; }\nclass {{{ oops\nexport function alsoGood() {}\n",
    );
    writeFileSync(path.join(root, "src/empty.go"), "");
    writeFileSync(path.join(outside, "secret.ts"), "export const leaked = 1;\n");
    symlinkSync(path.join(outside, "secret.ts"), path.join(root, "src/link.ts"));
    symlinkSync(outside, path.join(root, "linkdir"));
    built = await buildSymbolIndex({
      root,
      indexPath: path.join(root, "index.sqlite"),
      workers: 0,
      files: [
        { path: "src/garbage.ts", language: "typescript" },
        { path: "src/latin1.py", language: "python" },
        { path: "src/huge.min.js", language: "javascript" },
        { path: "src/big-line.js", language: "javascript" },
        { path: "src/many.ts", language: "typescript" },
        { path: "src/broken.ts", language: "typescript" },
        { path: "src/empty.go", language: "go" },
        { path: "src/link.ts", language: "typescript" },
        { path: "linkdir/secret.ts", language: "typescript" },
        { path: "src/missing.rs", language: "rust" },
        { path: "../escape.ts", language: "typescript" },
        { path: "/etc/passwd", language: "text" },
      ],
    });
  }, 60_000);

  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  const file = (p: string) =>
    openSymbolIndex(path.join(root, "index.sqlite"))
      .files()
      .find((f) => f.path === p)!;

  it("records every file with a status, whatever happened", () => {
    expect(built.files).toBe(12);
    expect(built.byStatus).toEqual({ skipped: 4, parsed: 4, error: 4 });
  });

  it("binary content is skipped", () => {
    expect(file("src/garbage.ts")).toMatchObject({ status: "skipped", note: "binary content" });
  });

  it("invalid UTF-8 is replaced and the rest still parses", () => {
    expect(file("src/latin1.py")).toMatchObject({ status: "parsed", note: "invalid UTF-8 replaced" });
    const index = openSymbolIndex(path.join(root, "index.sqlite"));
    expect(index.listSymbols({ file: "src/latin1.py" }).map((s) => s.name)).toEqual(["ok", "After"]);
  });

  it("a 10 MB single-line file is counted but not parsed", () => {
    expect(file("src/huge.min.js")).toMatchObject({
      status: "skipped",
      lines: 1,
      note: expect.stringContaining("larger than 2 MiB"),
    });
  });

  it("a 1.4 MB minified line is not parsed but still scanned for secrets", () => {
    expect(file("src/big-line.js")).toMatchObject({
      status: "skipped",
      lines: 2,
      note: expect.stringContaining("minified"),
    });
    expect(built.findings.filter((f) => f.file === "src/big-line.js").map((f) => f.ruleId)).toEqual([
      "secrets/aws-access-key",
    ]);
  });

  it("syntax errors are flagged and the valid parts still indexed", () => {
    expect(file("src/broken.ts")).toMatchObject({ status: "parsed", parseErrors: true });
    expect(
      openSymbolIndex(path.join(root, "index.sqlite"))
        .listSymbols({ file: "src/broken.ts" })
        .map((s) => s.name),
    ).toContain("good");
  });

  it("an empty file is fine", () => {
    expect(file("src/empty.go")).toMatchObject({ status: "parsed", lines: 0 });
  });

  it("symlinks are never followed out of the snapshot; listed paths outside it are refused", () => {
    expect(file("src/link.ts")).toMatchObject({ status: "skipped", note: "symbolic link: not followed" });
    expect(file("linkdir/secret.ts")).toMatchObject({ status: "error", note: "path resolves outside the snapshot" });
    expect(file("../escape.ts")).toMatchObject({ status: "error", note: "path is outside the snapshot" });
    expect(file("/etc/passwd")).toMatchObject({ status: "error", note: "path is outside the snapshot" });
    expect(file("src/missing.rs")).toMatchObject({ status: "error", note: expect.stringContaining("ENOENT") });
  });

  it("a parse that runs out of time is recorded, not fatal", { timeout: 30_000 }, async () => {
    expect(file("src/many.ts")).toMatchObject({ status: "parsed", lines: 20_000 });
    const result = await runFilePass({ path: "src/many.ts", language: "typescript" }, { root, parseTimeoutMs: 0 });
    expect(result.file).toMatchObject({ status: "skipped", note: "parse timed out" });
    // And the parser still works afterwards (it must be reset after a cancelled parse).
    const again = await runFilePass({ path: "src/broken.ts", language: "typescript" }, { root });
    expect(again.file.status).toBe("parsed");
  });
});

describe("the Python parser and deep indentation", () => {
  it("counts indentation levels (blank and comment lines aside, tabs to the next multiple of 8)", () => {
    expect(pythonIndentLevels("def f():\n    if x:\n\n# c\n        y()\n    z()\n")).toBe(2);
    expect(pythonIndentLevels("def f():\n\tif x:\n\t\ty()\n")).toBe(2);
    expect(pythonIndentLevels("x = 1\n")).toBe(0);
  });

  it("refuses a source nested deeper than the scanner holds, and the next parse is unharmed", async () => {
    const deep = `def v():\n${Array.from({ length: 700 }, (_, i) => `${" ".repeat(i + 1)}if a:`).join("\n")}\n${" ".repeat(701)}x()\n`;
    const refused = await parse("python", deep);
    expect(refused.tree).toBeNull();
    expect(refused.refused).toBe(
      `indentation nested 701 levels deep (more than ${MAX_PYTHON_INDENT_LEVELS}): not parsed`,
    );
    const next = await parse("python", "def ok():\n    return 1\n");
    try {
      expect(next.tree!.rootNode.type).toBe("module");
      expect(next.tree!.rootNode.hasError).toBe(false);
    } finally {
      next.tree?.delete();
    }
  });
});
