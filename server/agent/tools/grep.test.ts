import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ripgrepArgs } from "./ripgrep.ts";
import { fixtureWithTools } from "./test-fixture.ts";

const { f, call } = await fixtureWithTools();

const noSecrets = (text: string) => {
  expect(text).not.toContain(f.outsideSecret);
  for (const s of f.ignoredSecrets) expect(text).not.toContain(s);
};

describe("grep", () => {
  it("finds matches grouped by file, in path order, with line numbers", async () => {
    const r = await call("grep", { pattern: "formatName" });
    expect(r.text).toBe(
      [
        '3 matching lines in 2 files for pattern "formatName":',
        "src/app.ts",
        '  1: import { formatName } from "./util";',
        "  8:     return this.prefix + formatName(name);",
        "src/util.ts",
        "  1: export function formatName(name: string): string {",
      ].join("\n"),
    );
  });

  it("never searches ignored files, symlinks or anything outside the root", async () => {
    for (const pattern of ["SECRET", "greet", "inner", "."]) {
      const r = await call("grep", { pattern, max_results: 500 });
      noSecrets(r.text);
      expect(r.text).not.toMatch(
        /^(node_modules\/|generated\/|\.env$|debug\.log$|\.git\/|escape-|src\/escape-|inner-link|env-link)/m,
      );
    }
    // Even when the project's own ignore files try to re-include them.
    writeFileSync(path.join(f.root, ".rgignore"), "!.env\n!node_modules/\n");
    writeFileSync(path.join(f.root, ".ignore"), "!generated/\n");
    const r = await call("grep", { pattern: "SECRET" });
    expect(r.text).toBe('No matches for pattern "SECRET".');
  });

  it("a file name with a newline cannot smuggle an ignored file's lines in under another name", async () => {
    // rg prints "notes\nsrc\0" + "1:…": read line by line, the match would be credited to "src".
    writeFileSync(path.join(f.root, "notes\nsrc"), "SMUGGLED_TOKEN=abc\n");
    const r = await call("grep", { pattern: "SMUGGLED_TOKEN" });
    expect(r.text).toBe('No matches for pattern "SMUGGLED_TOKEN".');
  });

  it("skips binary files and files over the walker's size cap", async () => {
    expect((await call("grep", { pattern: "BINARYMARK" })).text).toBe('No matches for pattern "BINARYMARK".');
    expect((await call("grep", { pattern: "needle-at" })).text).toBe('No matches for pattern "needle-at".');
  });

  it("searches a big file when asked for it by path", async () => {
    const r = await call("grep", { pattern: "needle-at", path: "data/big.txt" });
    expect(r.text).toContain("  1: needle-at-top");
    expect(r.text).toContain("  50002: needle-at-bottom");
  });

  it("regex vs literal", async () => {
    expect((await call("grep", { pattern: "formatName\\(name" })).text).toContain("2 matching lines");
    expect((await call("grep", { pattern: "formatName(name", literal: true })).text).toContain("2 matching lines");
    const bad = await call("grep", { pattern: "formatName(name" });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/regex parse error[\s\S]*unclosed group[\s\S]*literal: true/);
  });

  it("case modes", async () => {
    expect((await call("grep", { pattern: "GREETER" })).text).toMatch(/^No matches/);
    expect((await call("grep", { pattern: "greet", path: "src/app.ts" })).text).toContain("3 matching lines");
    expect((await call("grep", { pattern: "GREETER", case: "insensitive", path: "src/app.ts" })).text).toContain(
      "2 matching lines",
    );
    expect((await call("grep", { pattern: "greet", case: "smart", path: "src/app.ts" })).text).toContain(
      "5 matching lines",
    );
    expect((await call("grep", { pattern: "Greet", case: "smart", path: "src/app.ts" })).text).toContain(
      "2 matching lines",
    );
  });

  it("globs and paths narrow the search", async () => {
    const md = await call("grep", { pattern: "greet", glob: "*.md" });
    expect(md.text).toBe(
      '1 matching line in 1 file for pattern "greet" (glob *.md):\ndocs/weird name.md\n  1: a file with a space: greet',
    );
    const excluded = await call("grep", { pattern: "greet", glob: ["src/**", "!src/long.ts"] });
    expect(excluded.text).toContain("src/app.ts");
    expect(excluded.text.split("\n")).not.toContain("src/long.ts");
    const inDocs = await call("grep", { pattern: "greet", path: "docs" });
    expect(inDocs.text).toContain('for pattern "greet" in docs');
    expect(inDocs.text).not.toContain("src/");
  });

  it("context lines with separators between distant groups", async () => {
    const r = await call("grep", { pattern: "formatName|runQuery", path: "src/app.ts", context: 1 });
    expect(r.text.split("\n").slice(1)).toEqual([
      "src/app.ts",
      '  1: import { formatName } from "./util";',
      '  2- import express from "express";',
      "  --",
      "  7-   greet(name: string): string {",
      "  8:     return this.prefix + formatName(name);",
      "  9-   }",
      "  --",
      "  16- ",
      "  17: export function runQuery(db: { query(sql: string): unknown }, id: string) {",
      '  18-   return db.query("SELECT * FROM users WHERE id = \'" + id + "\'");',
    ]);
  });

  it("caps results and counts the rest", async () => {
    const r = await call("grep", { pattern: "greet marker", max_results: 5 });
    const lines = r.text.split("\n");
    expect(lines[0]).toBe('2,500 matching lines in 1 file for pattern "greet marker":');
    expect(lines.filter((l) => /^ {2}\d+: /.test(l))).toHaveLength(5);
    expect(lines.at(-1)).toMatch(
      /^\[2,495 more matches not shown \(showing the first 5, files in path order\)\. Narrow the search/,
    );
  });

  it("pattern text can never become an rg option", async () => {
    const r = await call("grep", { pattern: "--files" });
    expect(r.text).toBe('No matches for pattern "--files".');
    const pre = await call("grep", { pattern: "x", glob: "--pre=/bin/sh" });
    expect(pre.isError).toBeUndefined();
    expect(ripgrepArgs({ pattern: "-e", globs: ["--pre=sh"], target: "src" }).slice(-5)).toEqual([
      "--glob=--pre=sh",
      "--glob=!*[\u0001-\u001f]*",
      "--regexp=-e",
      "--",
      "src",
    ]);
  });

  it("refuses escaping or ignored paths before rg runs", async () => {
    for (const p of [
      "..",
      "../outside",
      "/etc",
      "escape-dir",
      "src/escape-nested",
      "node_modules",
      ".env",
      "%2e%2e",
      "C:\\",
      "~",
    ]) {
      const r = await call("grep", { pattern: ".", path: p });
      expect(r.isError, p).toBe(true);
      noSecrets(r.text);
    }
    expect((await call("grep", { pattern: ".", path: "assets/blob.bin" })).text).toMatch(/binary file/);
  });

  it("stops when the review is cancelled", async () => {
    const ac = new AbortController();
    ac.abort(new Error("cancelled"));
    await expect(call("grep", { pattern: "greet" }, ac.signal)).rejects.toThrow("cancelled");
  });
});
