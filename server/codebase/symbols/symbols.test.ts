import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DomainError } from "../../errors.ts";
import { buildSymbolIndex, openSymbolIndex, type BuildResult, type SymbolHit, type SymbolIndex } from "./index.ts";
import { listFiles, materializeFixture } from "./testing.ts";

const FIXTURES = fileURLToPath(new URL("../../../test/fixtures/codebase/symbols", import.meta.url));

let root: string;
let cleanup: () => void;
let built: BuildResult;
let index: SymbolIndex;

beforeAll(async () => {
  ({ root, cleanup } = materializeFixture(FIXTURES));
  built = await buildSymbolIndex({
    root,
    files: listFiles(root),
    indexPath: path.join(root, "symbols.sqlite"),
    workers: 0,
  });
  index = openSymbolIndex(path.join(root, "symbols.sqlite"));
});

afterAll(() => {
  index?.close();
  cleanup?.();
});

/** "kind name [container] start-end" for each symbol of a file: compact, and a diff reads well. */
function outline(file: string): string[] {
  return index
    .listSymbols({ file })
    .map((s: SymbolHit) => `${s.kind} ${s.name} [${s.container ?? ""}] ${s.startLine}-${s.endLine}`);
}

describe("symbol index: definitions per language", () => {
  it("indexes every fixture file", () => {
    expect(built.files).toBe(21);
    expect(built.byStatus).toEqual({ parsed: 17, outline: 4 });
    expect(built.workers.requested).toBe(0);
  });

  it("TypeScript: enums, type aliases, interfaces, classes, constructors, arrow functions, namespaces", () => {
    expect(outline("typescript/src/lib/math.ts")).toEqual([
      "enum Op [] 1-4",
      "type Pair [] 6-6",
      "interface Shape [] 8-10",
      "method area [Shape] 9-9",
      "function add [] 12-14",
      "class Calculator [] 16-26",
      "constructor constructor [Calculator] 17-17",
      "method area [Calculator] 19-21",
      "method create [Calculator] 23-25",
      "function double [] 28-28",
      "module Internal [] 30-34",
      "function hidden [Internal] 31-33",
      "constant LIMIT [] 36-36",
    ]);
    const add = index.findDefinition("add")[0]!;
    expect(add).toMatchObject({
      path: "typescript/src/lib/math.ts",
      exported: true,
      signature: "export function add(a: number, b: number): number {",
    });
  });

  it("TSX and JavaScript", () => {
    expect(outline("typescript/src/components/Button.tsx")).toEqual(["function Button [] 3-5"]);
    expect(outline("typescript/src/legacy.js")).toEqual([
      "constant math [] 1-1",
      "function legacy [] 3-5",
      "class Old [] 7-11",
      "method run [Old] 8-10",
      "constant handlers [] 13-17",
      "function onClick [] 14-16",
    ]);
  });

  it("Python: classes, methods, functions, module constants", () => {
    expect(outline("python/pkg/models.py")).toEqual([
      "constant MAX_USERS [] 3-3",
      "class User [] 6-13",
      "method __init__ [User] 9-10",
      "method greet [User] 12-13",
      "function helper [] 16-17",
      "class Admin [] 20-22",
      "method greet [Admin] 21-22",
    ]);
  });

  it("Go: structs, interfaces, methods with their receiver, consts and vars", () => {
    expect(outline("go/internal/store/store.go")).toEqual([
      "constant MaxItems [] 3-3",
      "variable defaultName [] 5-5",
      "struct Item [] 7-9",
      "interface Counter [] 11-13",
      "struct Store [] 15-17",
      "function New [] 19-21",
      "method Count [Store] 23-25",
      "method Add [Store] 27-29",
    ]);
  });

  it("Rust: structs, enums, traits, impl methods, modules, macros", () => {
    expect(outline("rust/src/lib.rs")).toEqual([
      "constant LIMIT [] 3-3",
      "struct Point [] 5-7",
      "enum Shape [] 9-11",
      "trait Area [] 13-15",
      "method area [Area] 14-14",
      "method new [Point] 18-20",
      "method twice [Point] 22-24",
      "method area [Point] 28-30",
      "function build [] 33-38",
      "module inner [] 40-42",
      "function helper [inner] 41-41",
      "macro square [] 44-48",
    ]);
  });

  it("Java: classes, constructors, fields, nested enums/interfaces/records", () => {
    expect(outline("java/src/main/java/com/acme/App.java")).toEqual([
      "class App [] 6-32",
      "field name [App] 7-7",
      "constructor App [App] 9-11",
      "method greet [App] 13-15",
      "enum Mode [App] 17-20",
      "interface Listener [App] 22-24",
      "method onEvent [Listener] 23-23",
      "class Point [App] 26-26",
      "method main [App] 28-31",
    ]);
  });

  it("other languages get a line-based outline", () => {
    const ruby = outline("other/tool.rb");
    expect(ruby).toContain(built.outline === "ctags" ? "method call [Runner] 3-5" : "function call [] 3-3");
    expect(outline("other/util.c").some((s) => s.startsWith("function add [] 3-"))).toBe(true);
  });
});

describe("symbol index: queries", () => {
  it("find_definition: exact, qualified, case-insensitive fallback", () => {
    expect(index.findDefinition("Calculator.create").map((s) => `${s.path}:${s.startLine}`)).toEqual([
      "typescript/src/lib/math.ts:23",
    ]);
    expect(index.findDefinition("Store.Count")[0]).toMatchObject({
      path: "go/internal/store/store.go",
      startLine: 23,
      kind: "method",
    });
    expect(index.findDefinition("Point::new")[0]).toMatchObject({ path: "rust/src/lib.rs", startLine: 18 });
    expect(index.findDefinition("calculator")[0]?.name).toBe("Calculator");
    expect(
      index
        .findDefinition("greet")
        .map((s) => s.container)
        .sort(),
    ).toEqual(["Admin", "App", "User"]);
    expect(index.findDefinition("noSuchSymbol")).toEqual([]);
  });

  it("list_symbols: by query (ranked), kind and file", () => {
    expect(index.listSymbols({ query: "calc" }).map((s) => s.name)).toEqual(["Calculator"]);
    expect(index.listSymbols({ query: "area" })[0]?.name).toBe("area");
    expect(new Set(index.listSymbols({ kind: "struct" }).map((s) => s.name))).toEqual(
      new Set(["Item", "Store", "Point", "point"]),
    );
    expect(
      index
        .listSymbols({ kind: ["enum", "type"] })
        .map((s) => s.name)
        .sort(),
    ).toEqual(["Mode", "Op", "Pair", "Shape"]);
    expect(index.listSymbols({ query: "100%_" })).toEqual([]); // LIKE wildcards are escaped
  });

  it("find_references: calls, instantiations, imports", () => {
    const refs = index.findReferences("add").map((r) => `${r.path}:${r.line}:${r.kind}`);
    expect(refs).toEqual(
      expect.arrayContaining([
        "typescript/src/lib/math.ts:20:call",
        "typescript/src/index.ts:12:call",
        "typescript/src/legacy.js:4:call",
        "typescript/src/index.ts:1:import",
      ]),
    );
    expect(index.findReferences("new").map((r) => `${r.path}:${r.line}`)).toContain("rust/src/lib.rs:34"); // Point::new()
    expect(index.findReferences("App", { kind: "new" }).map((r) => `${r.path}:${r.line}`)).toEqual([
      "java/src/main/java/com/acme/App.java:29",
    ]);
    expect(index.findReferences("helper").map((r) => `${r.path}:${r.line}:${r.kind}`)).toEqual(
      expect.arrayContaining([
        "python/pkg/models.py:13:call",
        "python/pkg/views.py:2:import",
        "python/pkg/views.py:10:call",
      ]),
    );
    expect(index.findReferences("Count").map((r) => r.path)).toEqual(
      expect.arrayContaining(["go/main.go", "go/internal/store/store_test.go"]),
    );
  });

  it("module map: TS/JS relative, .js→.ts, index files, tsconfig paths, externals", () => {
    const from = "typescript/src/index.ts";
    const target = (spec: string, f = from) => {
      const r = index.findModule(spec, f);
      return `${r.kind}:${r.path ?? ""}`;
    };
    expect(target("./lib/math.js")).toBe("file:typescript/src/lib/math.ts");
    expect(target("./components")).toBe("file:typescript/src/components/index.ts");
    expect(target("@lib/strings")).toBe("file:typescript/src/lib/strings.ts");
    expect(target("~config")).toBe("file:typescript/src/config.ts");
    expect(target("node:fs")).toBe("external:");
    expect(target("lodash")).toBe("external:");
    expect(target("./does-not-exist")).toBe("unresolved:");
    expect(target("./Button", "typescript/src/components/index.ts")).toBe("file:typescript/src/components/Button.tsx");
    expect(target("./lib/math", "typescript/src/legacy.js")).toBe("file:typescript/src/lib/math.ts");
    // Not imported anywhere, still resolvable:
    expect(target("../lib/strings", "typescript/src/components/Button.tsx")).toBe("file:typescript/src/lib/strings.ts");
    expect(target("../../etc/passwd")).toBe("unresolved:");
  });

  it("module map: Python relative and dotted, Go packages, Java classes", () => {
    const target = (spec: string, from: string) => {
      const r = index.findModule(spec, from);
      return `${r.kind}:${r.path ?? ""}`;
    };
    expect(target(".models", "python/pkg/views.py")).toBe("file:python/pkg/models.py");
    expect(target("..outside", "python/pkg/views.py")).toBe("unresolved:");
    expect(target("pkg.models", "python/app.py")).toBe("file:python/pkg/models.py");
    expect(target("pkg", "python/app.py")).toBe("file:python/pkg/__init__.py");
    expect(target("requests", "python/app.py")).toBe("external:");
    const go = index.findModule("example.com/shop/internal/store", "go/main.go");
    expect(go).toMatchObject({
      kind: "package",
      path: "go/internal/store",
      files: ["go/internal/store/store.go", "go/internal/store/store_test.go"],
    });
    expect(target("fmt", "go/main.go")).toBe("external:");
    expect(target("example.com/shop/nope", "go/main.go")).toBe("unresolved:");
    expect(target("com.acme.util.Strings", "java/src/main/java/com/acme/App.java")).toBe(
      "file:java/src/main/java/com/acme/util/Strings.java",
    );
    // `from pkg import views` points at the submodule, not the package's __init__:
    expect(index.importsOf("python/app.py").find((e) => e.specifier === "pkg")?.target).toBe("python/pkg/views.py");
  });

  it("imports and importers of a file", () => {
    expect(
      index
        .importersOf("typescript/src/lib/strings.ts")
        .map((e) => e.file)
        .sort(),
    ).toEqual(["typescript/src/components/Button.tsx", "typescript/src/index.ts"]);
    expect(index.importersOf("go/internal/store/store.go").map((e) => e.file)).toEqual(["go/main.go"]);
    expect(index.importsOf("typescript/src/index.ts").map((e) => e.names)).toContainEqual(["add", "Calculator"]);
  });

  it("stats sum up the index", () => {
    const stats = index.stats();
    expect(stats.files).toBe(21);
    expect(stats.definitions).toBe(built.definitions);
    expect(stats.byLanguage.python).toEqual({ files: 4, lines: expect.any(Number) });
    expect(stats.meta.schema_version).toBe(1);
  });

  it("opening a missing index is a not-found domain error", () => {
    expect(() => openSymbolIndex(path.join(root, "nope.sqlite"))).toThrow(DomainError);
  });

  it("worker threads produce the same index as the main thread alone", async () => {
    const files = listFiles(root, (f) => !f.endsWith(".sqlite"));
    const withWorkers = await buildSymbolIndex({
      root,
      files,
      indexPath: path.join(root, "workers.sqlite"),
      workers: 1,
      mainThread: false,
    });
    expect(withWorkers.workers.failed).toEqual([]);
    expect(withWorkers.workers).toMatchObject({ started: 1, filesInWorkers: files.length });
    expect({ defs: withWorkers.definitions, refs: withWorkers.references, imports: withWorkers.imports }).toEqual({
      defs: built.definitions,
      refs: built.references,
      imports: built.imports,
    });
  });
});
