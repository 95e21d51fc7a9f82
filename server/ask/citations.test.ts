import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Sandbox } from "../agent/index.ts";
import { checkCitations } from "./citations.ts";

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "argus-cite-"));
  await mkdir(path.join(root, "src"));
  await writeFile(path.join(root, "src/a.ts"), "one\ntwo\nthree\n");
  await mkdir(path.join(root, "node_modules"));
  await writeFile(path.join(root, "node_modules/lib.js"), "module.exports = 1;\n");
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe("checkCitations", () => {
  it("marks each cited range as found, past the file's end, or naming no file of the snapshot", () => {
    const text = "See src/a.ts:1-3 and src/a.ts:2, also src/a.ts:3-9, src/gone.ts:4 and src/a.ts:1-3 again.";
    expect(checkCitations(text, new Sandbox(root))).toEqual([
      { path: "src/a.ts", line: 1, endLine: 3, status: "ok", fileLines: 3 },
      { path: "src/a.ts", line: 2, endLine: 2, status: "ok", fileLines: 3 },
      { path: "src/a.ts", line: 3, endLine: 9, status: "missing_lines", fileLines: 3 },
      { path: "src/gone.ts", line: 4, endLine: 4, status: "missing_file" },
    ]);
  });

  it("reads through the Sandbox: a file the import ignores is not in the snapshot, even when it is on disk", () => {
    expect(checkCitations("node_modules/lib.js:1", new Sandbox(root))).toEqual([
      { path: "node_modules/lib.js", line: 1, endLine: 1, status: "missing_file" },
    ]);
  });
});
