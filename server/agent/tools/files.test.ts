import { describe, expect, it } from "vitest";
import { MAX_READ_FILE_CHARS, MAX_READ_FILE_LINES } from "./limits.ts";
import { fixtureWithTools } from "./test-fixture.ts";

const { f, call } = await fixtureWithTools();

describe("list_dir", () => {
  it("lists the root with sizes, hides ignored entries and says how many", async () => {
    const r = await call("list_dir", {});
    expect(r.isError).toBeUndefined();
    const lines = r.text.split("\n");
    expect(lines[0]).toBe("./");
    expect(lines).toContain("  src/");
    expect(lines).toContain("  README.md  (23 B)");
    expect(lines).toContain("  escape-dir  (symbolic link, not followed)");
    for (const hidden of [".env", "node_modules", "generated", "debug.log", ".git/"])
      expect(r.text).not.toContain(`  ${hidden}`);
    expect(r.text).toContain(
      "[5 entries here excluded by ignore rules (.env, .git/, debug.log, generated/, node_modules/).]",
    );
  });

  it("descends with depth", async () => {
    const r = await call("list_dir", { path: "src", depth: 2 });
    expect(r.text.split("\n")).toEqual([
      "src/",
      "  app.ts  (478 B)",
      "  escape-nested  (symbolic link, not followed)",
      "  long.ts  (110.1 KB)",
      "  short.txt  (2.9 KB)",
      "  util.ts  (120 B)",
    ]);
    const deep = await call("list_dir", { path: ".", depth: 2 });
    expect(deep.text).toContain("  docs/\n    weird name.md  (27 B)");
  });

  it("refuses files, missing and ignored folders with advice", async () => {
    expect(await call("list_dir", { path: "README.md" })).toEqual({
      isError: true,
      text: '"README.md" is a file, not a folder. Use read_file to read it.',
    });
    expect((await call("list_dir", { path: "nope" })).text).toMatch(/There is no "nope"/);
    expect((await call("list_dir", { path: "node_modules" })).text).toMatch(/excluded from the review/);
  });
});

describe("read_file", () => {
  it("returns numbered lines with a header", async () => {
    const r = await call("read_file", { path: "src/util.ts" });
    expect(r.text).toBe(
      [
        "src/util.ts — lines 1–5 of 5 (typescript, 120 B)",
        "1 | export function formatName(name: string): string {",
        "2 |   return name.trim().toUpperCase();",
        "3 | }",
        "4 | ",
        '5 | export const VERSION = "1.0";',
      ].join("\n"),
    );
  });

  it("reads a line range, numbers aligned", async () => {
    const r = await call("read_file", { path: "src/long.ts", start_line: 98, end_line: 101 });
    expect(r.text.split("\n")).toEqual([
      "src/long.ts — lines 98–101 of 2,500 (typescript, 110.1 KB)",
      " 98 | export const line98 = 98; // greet marker",
      " 99 | export const line99 = 99; // greet marker",
      "100 | export const line100 = 100; // greet marker",
      "101 | export const line101 = 101; // greet marker",
    ]);
  });

  it("pages long files by characters or lines and says how to continue", async () => {
    const r = await call("read_file", { path: "src/long.ts" });
    const lines = r.text.split("\n");
    const last = lines.length - 2; // header and note
    expect(r.text.length).toBeLessThanOrEqual(MAX_READ_FILE_CHARS + 200);
    expect(lines.at(-2)).toBe(`${String(last).padStart(4)} | export const line${last} = ${last}; // greet marker`);
    expect(lines.at(-1)).toBe(
      `[Stopped at line ${last} (the 30,000-character limit of one call); call read_file with start_line ${last + 1} to continue.]`,
    );
    const next = await call("read_file", { path: "src/long.ts", start_line: 2400 });
    expect(next.text.split("\n").at(-1)).toBe("2500 | export const line2500 = 2500; // greet marker");

    const short = (await call("read_file", { path: "src/short.txt" })).text.split("\n");
    expect(short).toHaveLength(MAX_READ_FILE_LINES + 2);
    expect(short.at(-1)).toBe(
      `[Stopped at line ${MAX_READ_FILE_LINES} (the ${MAX_READ_FILE_LINES}-line limit of one call); call read_file with start_line ${MAX_READ_FILE_LINES + 1} to continue.]`,
    );
  });

  it("caps a big file by size and tells the model how to reach the rest", async () => {
    const r = await call("read_file", { path: "data/big.txt", start_line: 1, end_line: 3 });
    expect(r.text.split("\n")[0]).toMatch(/^data\/big.txt — lines 1–3 of at least 4[0-9,]+ \(text, 4\.8 MB\)$/);
    const tail = await call("read_file", { path: "data/big.txt", start_line: 41_900 });
    expect(tail.isError).toBeUndefined();
    expect(tail.text).toContain("only its first 4.0 MB can be read. Use grep");
    expect(tail.text).not.toContain("needle-at-bottom");
  });

  it("explains bad ranges", async () => {
    expect((await call("read_file", { path: "src/util.ts", start_line: 9 })).text).toBe(
      "src/util.ts has 5 lines; start_line 9 is past the end. Ask for lines 1–5.",
    );
    expect((await call("read_file", { path: "src/util.ts", start_line: 4, end_line: 2 })).isError).toBe(true);
  });

  it("refuses binary files and ignored files, never showing their content", async () => {
    const bin = await call("read_file", { path: "assets/blob.bin" });
    expect(bin.isError).toBe(true);
    expect(bin.text).toMatch(/binary file/);
    expect(bin.text).not.toContain("BINARYMARK");
    for (const p of [".env", "node_modules/dep/index.js", "generated/out.ts", "debug.log"]) {
      const r = await call("read_file", { path: p });
      expect(r.isError).toBe(true);
      for (const s of f.ignoredSecrets) expect(r.text).not.toContain(s);
    }
  });

  it("reads a path with a space", async () => {
    expect((await call("read_file", { path: "docs/weird name.md" })).text).toContain("1 | a file with a space: greet");
  });
});
