import { describe, expect, it } from "vitest";
import { followTarget, targetOfCall } from "./follow-target.ts";
import type { RoomEvent } from "./room-events.ts";

// The previews below are written in the tools' own output formats; server/agent/tools/
// follow-target.contract.test.ts checks the same extraction against the real tools' output.

describe("a tool call's target", () => {
  it("read_file: the path and the lines it asked for (the tools' 1 000-line window without an end)", () => {
    expect(targetOfCall("read_file", { path: "src/api.py", start_line: 10, end_line: 30 })).toEqual({
      path: "src/api.py",
      ranges: [[10, 30]],
      focus: 10,
      label: "read lines 10–30",
    });
    // Arguments as the tools coerce them: numeric strings are lines too.
    expect(targetOfCall("read_file", { path: "./src/a.ts", start_line: "5" })).toMatchObject({
      path: "src/a.ts",
      ranges: [[5, 1004]],
      focus: 5,
    });
    expect(targetOfCall("read_file", { path: "src/a.ts" })).toMatchObject({ ranges: [], focus: 1 });
    // An end before the start (the tool refuses it) marks from the start.
    expect(targetOfCall("read_file", { path: "a.ts", start_line: 9, end_line: 2 })?.ranges).toEqual([[9, 1008]]);
  });

  it("grep: the first file with matches and its matching lines, not its context lines", () => {
    const preview = [
      '3 matching lines in 2 files for pattern "execute":',
      "src/api.py",
      "  18- def find_items(name):",
      "  19: cursor.execute(f\"SELECT ... '%{name}%'\")",
      "  --",
      "  40: cursor.execute(query)",
      "src/db.py",
      "  4: conn.execute(x)",
    ].join("\n");
    expect(targetOfCall("grep", { pattern: "execute" }, preview)).toEqual({
      path: "src/api.py",
      ranges: [
        [19, 19],
        [40, 40],
      ],
      focus: 19,
      label: 'grep "execute": 2 hits here',
    });
  });

  it("grep: nothing to show before its result arrives, for no matches, or a header cut off by the preview", () => {
    expect(targetOfCall("grep", { pattern: "x", path: "src" })).toBeNull();
    expect(targetOfCall("grep", { pattern: "x" }, 'No matches for pattern "x".')).toBeNull();
    expect(targetOfCall("grep", { pattern: "x" }, '1 matching line in 1 file for pattern "x":\nsrc/ap')).toBeNull();
    // A preview cut inside a row keeps the rows whose numbers survived.
    expect(
      targetOfCall(
        "grep",
        { pattern: "x" },
        '9 matching lines in 1 file for pattern "x":\nsrc/a.ts\n  3: x\n  7: xx an',
      ),
    ).toMatchObject({
      path: "src/a.ts",
      ranges: [
        [3, 3],
        [7, 7],
      ],
    });
  });

  it("find_definition, list_symbols, search_code: the first located hit", () => {
    expect(
      targetOfCall(
        "find_definition",
        { name: "greet" },
        '2 definitions of "greet":\nsrc/app.ts:12-15  function greet (exported)\n    export function greet(name: string): string\nsrc/b.ts:1-3  method Greeter.greet',
      ),
    ).toEqual({ path: "src/app.ts", ranges: [[12, 15]], focus: 12, label: 'definition of "greet"' });
    expect(
      targetOfCall("list_symbols", { file: "src/app.ts" }, "3 symbols in src/app.ts:\n4-10  class Greeter"),
    ).toEqual({ path: "src/app.ts", ranges: [], focus: 1, label: "outline" });
    expect(
      targetOfCall("list_symbols", { query: "run" }, '1 symbol matching "run":\nsrc/app.ts:17-19  function runQuery'),
    ).toMatchObject({ path: "src/app.ts", ranges: [[17, 19]] });
    expect(
      targetOfCall(
        "search_code",
        { query: "sql" },
        '2 results for "sql" (hybrid), best first:\n1. src/api.py:15-22 find_items (score 0.912)\n   15 | def find_items',
      ),
    ).toMatchObject({ path: "src/api.py", ranges: [[15, 22]], focus: 15 });
  });

  it("find_references: the first file's reference lines", () => {
    const preview =
      '3 references to "formatName" in 2 files:\nsrc/app.ts\n  1:10 import  import { formatName } from "./util";\n  8:26 call  return this.prefix + formatName(name);\nsrc/b.ts\n  2:1 call  formatName(x)';
    expect(targetOfCall("find_references", { name: "formatName" }, preview)).toMatchObject({
      path: "src/app.ts",
      ranges: [
        [1, 1],
        [8, 8],
      ],
    });
  });

  it("get_file_summary and find_module name a file; list_dir, git and static analysis do not", () => {
    expect(targetOfCall("get_file_summary", { path: "src/app.ts" })?.path).toBe("src/app.ts");
    expect(
      targetOfCall(
        "find_module",
        { specifier: "./util", from_file: "src/app.ts" },
        '"./util" from src/app.ts resolves to the project file src/util.ts.',
      )?.path,
    ).toBe("src/util.ts");
    expect(targetOfCall("find_module", { specifier: "express", from_file: "src/app.ts" }, "… is external")?.path).toBe(
      "src/app.ts",
    );
    for (const name of ["list_dir", "get_git_log", "get_diff", "get_static_analysis", "no_such_tool"])
      expect(targetOfCall(name, { path: "src/app.ts" }, "src/app.ts:1-2  x")).toBeNull();
  });

  it("hostile or malformed arguments give no target instead of a bad path or line", () => {
    for (const input of [
      { path: 42 },
      { path: "" },
      { path: "." },
      { path: "a\nb" },
      { path: "x\0y" },
      { path: "a".repeat(5000) },
      { path: { toString: () => "src/app.ts" } },
    ])
      expect(targetOfCall("read_file", input)).toBeNull();
    expect(targetOfCall("read_file", { path: "a.ts", start_line: -4, end_line: "1e9" })).toMatchObject({
      ranges: [],
    });
    expect(targetOfCall("read_file", { path: "a.ts", start_line: 2.5 })?.ranges).toEqual([]);
  });
});

describe("where the agent is looking at a moment", () => {
  const room = "review:0f8e3a52-6d1b-4c0e-9a57-2b9d3c4e5f61" as const;
  let seq = 0;
  const ev = (body: Omit<RoomEvent<"review">, "room" | "seq" | "at">) =>
    ({ ...body, room, seq: ++seq, at: "2025-01-01T00:00:00Z" }) as RoomEvent<"review">;
  const call = (id: string, name: string, input: Record<string, unknown>) =>
    ev({ type: "tool_call", payload: { id, name, input, iteration: 1 } });
  const result = (id: string, name: string, preview: string, isError = false) =>
    ev({ type: "tool_result", payload: { id, name, isError, preview, chars: preview.length, durationMs: 3 } });

  const readApi = call("a", "read_file", { path: "src/api.py", start_line: 1, end_line: 40 });
  const readApiDone = result("a", "read_file", "  1 | import sqlite3");
  const grepCall = call("b", "grep", { pattern: "execute", path: "src" });
  const grepDone = result(
    "b",
    "grep",
    '1 matching line in 1 file for pattern "execute" in src:\nsrc/db.py\n  7: execute()',
  );
  const listDir = call("c", "list_dir", { path: "." });
  const missing = call("d", "read_file", { path: "src/nope.py" });
  const missingDone = result("d", "read_file", 'There is no file "src/nope.py".', true);

  it("nothing before the first call that names a file", () => {
    expect(followTarget([])).toBeNull();
    expect(followTarget([listDir])).toBeNull();
  });

  it("the latest call naming a file, with its result once it has arrived", () => {
    expect(followTarget([readApi])).toMatchObject({ path: "src/api.py", tool: "read_file", seq: readApi.seq });
    expect(followTarget([readApi, readApiDone, grepCall])).toMatchObject({ path: "src/api.py" }); // grep not answered yet
    expect(followTarget([readApi, readApiDone, grepCall, grepDone])).toMatchObject({
      path: "src/db.py",
      ranges: [[7, 7]],
      tool: "grep",
      seq: grepCall.seq,
    });
    // A call that names no file keeps the last file in view.
    expect(followTarget([readApi, readApiDone, grepCall, grepDone, listDir])?.path).toBe("src/db.py");
  });

  it("a call whose result was an error is passed over", () => {
    expect(followTarget([readApi, readApiDone, missing])?.path).toBe("src/nope.py"); // not answered yet
    expect(followTarget([readApi, readApiDone, missing, missingDone])?.path).toBe("src/api.py");
  });
});
