import { describe, expect, it } from "vitest";
import { chunkCode, type CodeChunk } from "./code.ts";

/** "start-end symbolPath [symbols] (part)" per chunk: compact, and a diff reads well. */
const outline = (chunks: CodeChunk[]) =>
  chunks.map((c) => `${c.startLine}-${c.endLine} ${c.symbolPath ?? "-"} [${c.symbols.map((s) => `${s.kind} ${s.path}`).join(", ")}]${c.part ? ` (${c.part.index}/${c.part.count})` : ""}`);

const TS = `import { x } from "./x";

/** Says hello. */
export class Greeter {
  private name: string;
  constructor(name: string) {
    this.name = name;
  }
  hi(): string {
    return "hi " + this.name;
  }
  bye(): string {
    return "bye";
  }
}

export function add(a: number, b: number): number {
  return a + b;
}
`;

const PY = `import os

class Greeter:
    def __init__(self, name):
        self.name = name

    @staticmethod
    def hi():
        return "hi"

def add(a, b):
    return a + b
`;

describe("code chunks along definitions", () => {
  it("TypeScript: a class too big for one chunk opens into its methods; its doc comment stays with it", async () => {
    const chunks = await chunkCode({ path: "src/greeter.ts", language: "typescript", source: TS }, { maxLines: 8, minLines: 3, overlapLines: 2 });
    expect(outline(chunks)).toEqual([
      "1-1 - []",
      "3-5 Greeter [class Greeter]",
      "6-8 Greeter.constructor [constructor Greeter.constructor]",
      "9-11 Greeter.hi [method Greeter.hi]",
      // The closing brace is tiny: merged with the last method, under their common container.
      "12-15 Greeter [method Greeter.bye, class Greeter]",
      "17-19 add [function add]",
    ]);
    expect(chunks[3]!.text).toBe('  hi(): string {\n    return "hi " + this.name;\n  }');
    expect(chunks.every((c) => c.file === "src/greeter.ts" && c.language === "typescript")).toBe(true);
  });

  it("TypeScript with the defaults: tiny neighbours merge into one chunk", async () => {
    const chunks = await chunkCode({ path: "g.ts", language: "typescript", source: TS });
    expect(outline(chunks)).toEqual(["1-19 - [class Greeter, constructor Greeter.constructor, method Greeter.hi, method Greeter.bye, function add]"]);
  });

  it("Python: a class that fits is one chunk (decorators included); functions are their own", async () => {
    const chunks = await chunkCode({ path: "g.py", language: "python", source: PY }, { maxLines: 8, minLines: 3 });
    expect(outline(chunks)).toEqual(["1-1 - []", "3-9 Greeter [class Greeter, method Greeter.__init__, method Greeter.hi]", "11-12 add [function add]"]);
  });

  it("Python: an opened class keeps decorators with their method", async () => {
    const chunks = await chunkCode({ path: "g.py", language: "python", source: PY }, { maxLines: 4, minLines: 1, overlapLines: 1 });
    expect(outline(chunks)).toEqual([
      "1-1 - []",
      "3-3 Greeter [class Greeter]",
      "4-5 Greeter.__init__ [method Greeter.__init__]",
      "7-9 Greeter.hi [method Greeter.hi]",
      "11-12 add [function add]",
    ]);
  });

  it("a long function is cut into even, overlapping windows", async () => {
    const body = Array.from({ length: 28 }, (_, i) => `  const v${i} = ${i};`).join("\n");
    const source = `function longOne() {\n${body}\n}\n`;
    const chunks = await chunkCode({ path: "l.ts", language: "typescript", source }, { maxLines: 12, overlapLines: 3 });
    expect(outline(chunks)).toEqual(["1-12 longOne [function longOne] (1/3)", "10-21 longOne [function longOne] (2/3)", "19-30 longOne [function longOne] (3/3)"]);
    expect(chunks[1]!.text.split("\n")[0]).toBe("  const v8 = 8;");
  });

  it("tiny top-level neighbours are merged, up to the size limit", async () => {
    const source = Array.from({ length: 5 }, (_, i) => `function f${i}() {\n  return ${i};\n}\n`).join("\n");
    const chunks = await chunkCode({ path: "t.ts", language: "typescript", source }, { maxLines: 8, minLines: 6 });
    expect(outline(chunks)).toEqual(["1-7 - [function f0, function f1]", "9-15 - [function f2, function f3]", "17-19 f4 [function f4]"]);
  });

  it("files without a grammar fall back to line windows", async () => {
    const source = Array.from({ length: 150 }, (_, i) => `line ${i + 1}`).join("\n");
    const chunks = await chunkCode({ path: "notes.rb", language: "ruby", source });
    expect(outline(chunks)).toEqual(["1-54 - []", "50-103 - []", "99-150 - []"]);
    expect(chunks[2]!.text.endsWith("line 150")).toBe(true);
  });

  it("an over-long line is cut by characters; empty files give nothing", async () => {
    const chunks = await chunkCode({ path: "min.js", language: "text", source: `a\n${"x".repeat(5000)}\nb` }, { maxChars: 2400 });
    expect(chunks.map((c) => [c.startLine, c.endLine, c.text.length])).toEqual([
      [1, 1, 1],
      [2, 2, 2400],
      [2, 2, 2400],
      [2, 2, 200],
      [3, 3, 1],
    ]);
    expect(await chunkCode({ path: "e.ts", language: "typescript", source: "" })).toEqual([]);
  });

  it("uses definitions handed in by the symbol index instead of parsing", async () => {
    const chunks = await chunkCode(
      { path: "x.unknown", language: "text", source: "a\nb\nc\nd\n", definitions: [{ name: "B", kind: "class", container: null, startLine: 2, endLine: 3, signature: "b", exported: true }] },
      { minLines: 1 },
    );
    expect(outline(chunks)).toEqual(["1-1 - []", "2-3 B [class B]", "4-4 - []"]);
  });
});
