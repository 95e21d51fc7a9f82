import { describe, expect, it } from "vitest";
import { globToRegex, sqlIn, sqlString } from "./sql.ts";

const matches = (glob: string, file: string) => new RegExp(globToRegex(glob)).test(file);

describe("sqlString", () => {
  it("doubles quotes and refuses NUL", () => {
    expect(sqlString("it's")).toBe("'it''s'");
    expect(sqlString("a' OR 1=1 --")).toBe("'a'' OR 1=1 --'");
    expect(() => sqlString("a\0b")).toThrow(/NUL/);
    expect(sqlIn("file", ["a", "b'c"])).toBe("file IN ('a', 'b''c')");
  });
});

describe("globToRegex", () => {
  it.each([
    ["src/*.ts", "src/a.ts", true],
    ["src/*.ts", "src/x/a.ts", false],
    ["src/**/*.ts", "src/a.ts", true],
    ["src/**/*.ts", "src/x/y/a.ts", true],
    ["src/**", "src/x/y/a.ts", true],
    ["*.md", "docs/deep/readme.md", true],
    ["*.md", "readme.mdx", false],
    ["**/*.{ts,tsx}", "a/b.tsx", true],
    ["file?.py", "file1.py", true],
    ["file[12].py", "file3.py", false],
    ["file[!12].py", "file3.py", true],
    ["a.b", "axb", false],
    ["(x)+$.ts", "(x)+$.ts", true],
    ["./src/*.ts", "src/a.ts", true],
  ])("%s vs %s → %s", (glob, file, expected) => {
    expect(matches(glob, file)).toBe(expected);
  });

  it("refuses empty, huge and unbalanced globs", () => {
    expect(() => globToRegex("  ")).toThrow(/empty/);
    expect(() => globToRegex("a".repeat(600))).toThrow(/limit/);
    expect(() => globToRegex("{a,b")).toThrow(/unclosed/);
  });
});
