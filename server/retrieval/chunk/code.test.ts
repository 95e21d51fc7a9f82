import { describe, expect, it } from "vitest";
import { chunkCode, type CodeChunk } from "./code.ts";

/** "start-end symbolPath [symbols] (part)" per chunk: compact, and a diff reads well. */
const outline = (chunks: CodeChunk[]) =>
  chunks.map(
    (c) =>
      `${c.startLine}-${c.endLine} ${c.symbolPath ?? "-"} [${c.symbols.map((s) => `${s.kind} ${s.path}`).join(", ")}]${c.part ? ` (${c.part.index}/${c.part.count})` : ""}`,
  );

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
    const chunks = await chunkCode(
      { path: "src/greeter.ts", language: "typescript", source: TS },
      { maxLines: 8, minLines: 3, overlapLines: 2 },
    );
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
    expect(outline(chunks)).toEqual([
      "1-19 - [class Greeter, constructor Greeter.constructor, method Greeter.hi, method Greeter.bye, function add]",
    ]);
  });

  it("Python: a class that fits is one chunk (decorators included); functions are their own", async () => {
    const chunks = await chunkCode({ path: "g.py", language: "python", source: PY }, { maxLines: 8, minLines: 3 });
    expect(outline(chunks)).toEqual([
      "1-1 - []",
      "3-9 Greeter [class Greeter, method Greeter.__init__, method Greeter.hi]",
      "11-12 add [function add]",
    ]);
  });

  it("Python: an opened class keeps decorators with their method", async () => {
    const chunks = await chunkCode(
      { path: "g.py", language: "python", source: PY },
      { maxLines: 4, minLines: 1, overlapLines: 1 },
    );
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
    expect(outline(chunks)).toEqual([
      "1-12 longOne [function longOne] (1/3)",
      "10-21 longOne [function longOne] (2/3)",
      "19-30 longOne [function longOne] (3/3)",
    ]);
    expect(chunks[1]!.text.split("\n")[0]).toBe("  const v8 = 8;");
  });

  it("tiny top-level neighbours are merged, up to the size limit", async () => {
    const source = Array.from({ length: 5 }, (_, i) => `function f${i}() {\n  return ${i};\n}\n`).join("\n");
    const chunks = await chunkCode({ path: "t.ts", language: "typescript", source }, { maxLines: 8, minLines: 6 });
    expect(outline(chunks)).toEqual([
      "1-7 - [function f0, function f1]",
      "9-15 - [function f2, function f3]",
      "17-19 f4 [function f4]",
    ]);
  });

  it("files without a grammar fall back to line windows", async () => {
    const source = Array.from({ length: 150 }, (_, i) => `line ${i + 1}`).join("\n");
    const chunks = await chunkCode({ path: "notes.rb", language: "ruby", source });
    expect(outline(chunks)).toEqual(["1-54 - []", "50-103 - []", "99-150 - []"]);
    expect(chunks[2]!.text.endsWith("line 150")).toBe(true);
  });

  it("an over-long line is cut by characters; empty files give nothing", async () => {
    const chunks = await chunkCode(
      { path: "min.js", language: "text", source: `a\n${"x".repeat(5000)}\nb` },
      { maxChars: 2400 },
    );
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
      {
        path: "x.unknown",
        language: "text",
        source: "a\nb\nc\nd\n",
        definitions: [
          { name: "B", kind: "class", container: null, startLine: 2, endLine: 3, signature: "b", exported: true },
        ],
      },
      { minLines: 1 },
    );
    expect(outline(chunks)).toEqual(["1-1 - []", "2-3 B [class B]", "4-4 - []"]);
  });
});

const GO = `package geo

import "math"

// Point is a location on a plane.
type Point struct {
	X, Y float64
}

// Dist returns the distance to q.
func (p Point) Dist(q Point) float64 {
	dx := p.X - q.X
	dy := p.Y - q.Y
	return math.Sqrt(dx*dx + dy*dy)
}

// Origin is the zero point.
func Origin() Point {
	return Point{}
}
`;

const RUST = `use std::fmt;

/// A 2-D point.
pub struct Point {
    x: f64,
    y: f64,
}

impl Point {
    /// Builds a point.
    pub fn new(x: f64, y: f64) -> Self {
        Point { x, y }
    }

    pub fn dist(&self, q: &Point) -> f64 {
        ((self.x - q.x).powi(2) + (self.y - q.y).powi(2)).sqrt()
    }
}

fn origin() -> Point {
    Point::new(0.0, 0.0)
}
`;

const JAVA = `package geo;

import java.util.List;

/** A point on a plane. */
public class Point {
    private final double x;
    private final double y;

    public Point(double x, double y) {
        this.x = x;
        this.y = y;
    }

    /** Distance to another point. */
    public double dist(Point q) {
        double dx = x - q.x;
        double dy = y - q.y;
        return Math.sqrt(dx * dx + dy * dy);
    }
}
`;

const JS = `const path = require("path");

/** Joins and normalises. */
function join(a, b) {
  return path.normalize(a + "/" + b);
}

class Cache {
  constructor() {
    this.map = new Map();
  }

  get(key) {
    return this.map.get(key);
  }

  set(key, value) {
    this.map.set(key, value);
    return this;
  }
}

module.exports = { join, Cache };
`;

describe("code chunks in Go, Rust, Java and JavaScript", () => {
  const small = { maxLines: 8, minLines: 3, overlapLines: 2 };

  it("Go: a method is its own chunk under its receiver type, with its doc comment", async () => {
    const chunks = await chunkCode({ path: "geo/point.go", language: "go", source: GO }, small);
    expect(outline(chunks)).toEqual([
      // The package clause and import are tiny: merged with the struct (top level, so no symbol path).
      "1-8 - [struct Point]",
      "10-15 Point.Dist [method Point.Dist]",
      "17-20 Origin [function Origin]",
    ]);
    expect(chunks[1]!.text.split("\n")[0]).toBe("// Dist returns the distance to q.");
    expect(chunks.every((c) => c.language === "go" && c.file === "geo/point.go")).toBe(true);
  });

  it("Go: a long function is cut into overlapping windows, its doc comment in the first", async () => {
    const body = Array.from({ length: 26 }, (_, i) => `\ttotal += ${i}`).join("\n");
    const source = `package sum\n\n// Long adds many numbers.\nfunc Long() int {\n\ttotal := 0\n${body}\n\treturn total\n}\n`;
    const chunks = await chunkCode({ path: "s.go", language: "go", source }, { maxLines: 12, overlapLines: 3 });
    expect(outline(chunks)).toEqual([
      "1-1 - []",
      "3-12 Long [function Long] (1/4)",
      "10-19 Long [function Long] (2/4)",
      "17-26 Long [function Long] (3/4)",
      "24-33 Long [function Long] (4/4)",
    ]);
    // Consecutive windows share exactly `overlapLines` lines.
    const [, w1, w2] = chunks;
    expect(w1!.text.split("\n").slice(-3)).toEqual(w2!.text.split("\n").slice(0, 3));
    expect(w1!.text.startsWith("// Long adds many numbers.\nfunc Long() int {")).toBe(true);
  });

  it("Rust: struct, impl methods (with /// docs) and free functions are separate chunks", async () => {
    const chunks = await chunkCode({ path: "src/point.rs", language: "rust", source: RUST }, small);
    expect(outline(chunks)).toEqual([
      "1-7 - [struct Point]",
      // An `impl` block is not a definition: its header and closing brace are top-level lines merged
      // into the neighbouring method, whose chunk then has no single symbol path.
      "9-13 - [method Point.new]",
      "15-18 - [method Point.dist]",
      "20-22 origin [function origin]",
    ]);
    expect(chunks[1]!.text).toContain("/// Builds a point.");
  });

  it("Rust: tiny neighbouring functions are merged up to the size limit", async () => {
    const source = Array.from({ length: 5 }, (_, i) => `fn f${i}() -> u32 {\n    ${i}\n}\n`).join("\n");
    const chunks = await chunkCode({ path: "t.rs", language: "rust", source }, { maxLines: 8, minLines: 6 });
    expect(outline(chunks)).toEqual([
      "1-7 - [function f0, function f1]",
      "9-15 - [function f2, function f3]",
      "17-19 f4 [function f4]",
    ]);
  });

  it("Java: an opened class gives its constructor and methods their own chunks, Javadoc attached", async () => {
    const chunks = await chunkCode({ path: "geo/Point.java", language: "java", source: JAVA }, small);
    expect(outline(chunks)).toEqual([
      "1-3 - []",
      "5-8 Point [class Point]",
      "10-13 Point.Point [constructor Point.Point]",
      "15-21 Point [method Point.dist, class Point]",
    ]);
    expect(chunks[3]!.text.split("\n")[0]).toBe("    /** Distance to another point. */");
  });

  it("Java: nested classes give nested symbol paths", async () => {
    const source = `class Outer {\n    static class Inner {\n        int a() {\n            return 1;\n        }\n        int b() {\n            return 2;\n        }\n    }\n    void c() {\n        new Inner().a();\n        new Inner().b();\n        System.out.println("c");\n    }\n}\n`;
    const chunks = await chunkCode(
      { path: "O.java", language: "java", source },
      { maxLines: 6, minLines: 1, overlapLines: 1 },
    );
    expect(outline(chunks)).toEqual([
      "1-1 Outer [class Outer]",
      "2-2 Outer.Inner [class Outer.Inner]",
      "3-5 Outer.Inner.a [method Outer.Inner.a]",
      "6-8 Outer.Inner.b [method Outer.Inner.b]",
      "9-9 Outer.Inner [class Outer.Inner]",
      "10-14 Outer.c [method Outer.c]",
      "15-15 Outer [class Outer]",
    ]);
  });

  it("JavaScript: a class opens into its methods; the trailing export stays a chunk of its own", async () => {
    const chunks = await chunkCode({ path: "lib/cache.js", language: "javascript", source: JS }, small);
    expect(outline(chunks)).toEqual([
      "1-6 - [constant path, function join]",
      "8-11 Cache [class Cache, constructor Cache.constructor]",
      "13-15 Cache.get [method Cache.get]",
      "17-21 Cache [method Cache.set, class Cache]",
      "23-23 - []",
    ]);
    expect(chunks[4]!.text).toBe("module.exports = { join, Cache };");
  });

  it("JavaScript: arrow functions and generators bound to names are definitions", async () => {
    const source = `export default {\n  name: "x",\n};\n\nexport const handler = async (event) => {\n  const body = JSON.parse(event.body);\n  return { statusCode: 200, body: JSON.stringify(body) };\n};\n\nexport function* ids() {\n  let i = 0;\n  while (true) yield i++;\n}\n`;
    const chunks = await chunkCode({ path: "h.js", language: "javascript", source }, { maxLines: 6, minLines: 1 });
    expect(outline(chunks)).toEqual(["1-3 - []", "5-8 handler [function handler]", "10-13 ids [function ids]"]);
  });
});
