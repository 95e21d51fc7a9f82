import { describe, expect, it } from "vitest";
import { createReviewTools, runToolCall, type ToolContext } from "./index.ts";
import { fixtureWithTools } from "./test-fixture.ts";

const { f, call } = await fixtureWithTools({ index: true });

describe("symbol tools", () => {
  it("list_symbols: a file's outline with ranges and signatures", async () => {
    const r = await call("list_symbols", { file: "src/util.ts" });
    expect(r.text).toBe(
      [
        "2 symbols in src/util.ts:",
        "1-3  function formatName (exported)",
        "    export function formatName(name: string): string {",
        "5-5  constant VERSION (exported)",
        '    export const VERSION = "1.0";',
      ].join("\n"),
    );
  });

  it("list_symbols: by query and kind across the project", async () => {
    const r = await call("list_symbols", { query: "greet", kind: "class" });
    expect(r.text).toBe(
      '1 symbol of kind class matching "greet":\nsrc/app.ts:4-10  class Greeter (exported)\n    export class Greeter {',
    );
    const capped = await call("list_symbols", { limit: 2 });
    expect(capped.text).toMatch(/\[Showing the first 2 symbols; there may be more/);
  });

  it("find_definition: exported first, narrowed by container", async () => {
    const r = await call("find_definition", { name: "greet" });
    expect(r.text.split("\n")).toEqual([
      '2 definitions of "greet":',
      "src/app.ts:12-15  function greet (exported)",
      "    export function greet(name: string): string {",
      "src/app.ts:7-9  method Greeter.greet",
      "    greet(name: string): string {",
    ]);
    expect((await call("find_definition", { name: "Greeter.greet" })).text).toContain("1 definition of");
    expect((await call("find_definition", { name: "nothingLikeThis" })).text).toMatch(
      /No definition of "nothingLikeThis".*try grep/,
    );
  });

  it("find_references: grouped by file with the line of code", async () => {
    const r = await call("find_references", { name: "formatName" });
    expect(r.text).toBe(
      [
        '2 references to "formatName" in 1 file:',
        "src/app.ts",
        '  1:1 import  import { formatName } from "./util";',
        "  8:26 call  return this.prefix + formatName(name);",
      ].join("\n"),
    );
    expect((await call("find_references", { name: "formatName", kind: "call" })).text).toContain("1 reference to");
  });

  it("find_module: project file, external, unresolved", async () => {
    expect((await call("find_module", { specifier: "./util", from_file: "src/app.ts" })).text).toBe(
      '"./util" from src/app.ts resolves to the project file src/util.ts.',
    );
    expect((await call("find_module", { specifier: "express", from_file: "src/app.ts" })).text).toMatch(/is external/);
    expect((await call("find_module", { specifier: "./nope", from_file: "src/app.ts" })).text).toMatch(/unresolved/);
  });

  it("refuse paths outside or ignored, and say so when there is no index", async () => {
    for (const [name, args] of [
      ["list_symbols", { file: "../outside/secret.txt" }],
      ["list_symbols", { file: "node_modules/dep/index.js" }],
      ["find_module", { specifier: "./x", from_file: "escape-rel" }],
      ["get_file_summary", { path: "escape-abs" }],
      ["get_file_summary", { path: ".env" }],
    ] as const) {
      const r = await call(name, args);
      expect(r.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(r.text).not.toContain(f.outsideSecret);
      for (const s of f.ignoredSecrets) expect(r.text).not.toContain(s);
    }
    const bare: ToolContext = { root: f.root, staticFindings: async () => [] };
    const noIndex = createReviewTools(bare);
    const r = await runToolCall(noIndex, "find_definition", { name: "greet" });
    expect(r).toEqual({
      isError: true,
      text: "This snapshot has no symbol index, so symbol tools can't answer. Use grep to find definitions and usages, and list_dir / read_file to explore.",
    });
    const missing = createReviewTools({ ...bare, symbolsPath: `${f.base}/nope.sqlite` });
    expect((await runToolCall(missing, "list_symbols", {})).text).toBe(
      "This snapshot has no symbol index yet. Use grep, list_dir and read_file instead.",
    );
    // The summary still works without an index.
    const summary = await runToolCall(noIndex, "get_file_summary", { path: "src/util.ts" });
    expect(summary.text).toContain(
      "Outline: not available (This snapshot has no symbol index, so symbol tools can't answer).",
    );
  });
});

describe("get_file_summary and get_static_analysis", () => {
  it("summarises a file: language, size, lines, outline, imports, importers, findings", async () => {
    const r = await call("get_file_summary", { path: "src/app.ts" });
    expect(r.text).toBe(
      [
        "src/app.ts",
        "language: typescript · 478 B · 19 lines",
        "Outline (6):",
        "  4-10 class Greeter (exported)",
        "  5-5 constructor Greeter.constructor",
        "  7-9 method Greeter.greet",
        "  12-15 function greet (exported)",
        "  17-17 method runQuery.query",
        "  17-19 function runQuery (exported)",
        "Imports (2):",
        "  1: ./util → src/util.ts",
        "  2: express → external",
        "Imported by (0): no file in the project",
        "Static findings (2: 1 high, 1 low):",
        "  [high] line 18 argus sql/string-concat (confidence 0.80): SQL built by string concatenation",
        "  [low] line 2 eslint no-unused-vars (confidence 0.90): 'express' is defined but never used",
      ].join("\n"),
    );
    expect((await call("get_file_summary", { path: "src/util.ts" })).text).toContain("Imported by (1):\n  src/app.ts");
  });

  it("lists static findings, most severe first, without ignored files", async () => {
    const r = await call("get_static_analysis", {});
    expect(r.text.split("\n")).toEqual([
      "3 static findings (1 high, 1 low, 1 info):",
      "[high] src/app.ts:18 argus sql/string-concat (confidence 0.80): SQL built by string concatenation",
      "[low] src/app.ts:2 eslint no-unused-vars (confidence 0.90): 'express' is defined but never used",
      "[info] src/long.ts:1-2500 argus style/long-file (confidence 0.50): Very long file",
    ]);
    expect(r.text).not.toContain(f.ignoredSecrets[1]);
  });

  it("filters by folder, file and minimum severity, and caps with a note", async () => {
    expect((await call("get_static_analysis", { file: "src", min_severity: "medium" })).text).toBe(
      "1 static finding in src at or above medium (1 high):\n[high] src/app.ts:18 argus sql/string-concat (confidence 0.80): SQL built by string concatenation",
    );
    expect((await call("get_static_analysis", { file: "src/long.ts" })).text).toContain(
      "1 static finding in src/long.ts",
    );
    expect((await call("get_static_analysis", { file: "src/util.ts" })).text).toBe(
      "No static findings in src/util.ts (4 findings in the whole snapshot).",
    );
    expect((await call("get_static_analysis", { limit: 1 })).text).toContain("[2 more not shown");
    expect((await call("get_static_analysis", { file: "node_modules" })).isError).toBe(true);
    expect((await call("get_static_analysis", { min_severity: "severe" })).text).toMatch(
      /min_severity: Invalid option: expected one of "critical"\|"high"/,
    );
  });
});

describe("search_code", () => {
  const searchCode: NonNullable<ToolContext["searchCode"]> = async (query, opts) => {
    expect(opts).toEqual({ mode: "hybrid", k: 10, pathGlob: "src/**", language: undefined });
    expect(query).toBe("string concatenation query");
    return [
      {
        file: "src/app.ts",
        startLine: 12,
        endLine: 19,
        snippetStartLine: 17,
        snippet:
          'export function runQuery(db: { query(sql: string): unknown }, id: string) {\n  return db.query("SELECT * FROM users WHERE id = \'" + id + "\'");\n}',
        score: 0.5,
        symbolPath: "runQuery",
      },
      {
        file: "node_modules/dep/index.js",
        startLine: 1,
        endLine: 1,
        snippetStartLine: 1,
        snippet: f.ignoredSecrets[1]!,
        score: 0.4,
      },
    ];
  };

  it("numbers snippets by their real lines and drops ignored files", async () => {
    const set = createReviewTools({ ...f.ctx, searchCode });
    const r = await runToolCall(set, "search_code", { query: "string concatenation query", path_glob: "src/**" });
    expect(r.text).toBe(
      [
        '1 result for "string concatenation query" (hybrid), best first:',
        "1. src/app.ts:12-19 runQuery (score 0.500)",
        "   17 | export function runQuery(db: { query(sql: string): unknown }, id: string) {",
        '   18 |   return db.query("SELECT * FROM users WHERE id = \'" + id + "\'");',
        "   19 | }",
      ].join("\n"),
    );
  });

  it("says clearly when the snapshot has no search index", async () => {
    expect(await call("search_code", { query: "x" })).toEqual({
      isError: true,
      text: "This snapshot has no code-search index, so search_code can't answer. Use grep for text, find_definition for symbols, list_dir to explore.",
    });
  });
});
