/**
 * Bad input through a whole import: files that do not parse, that nest too deeply for the parser or
 * the taint engine, enormous functions and a file over its time budget each end their own analysis
 * with a note naming the file and why — the import finishes, and the other files are analysed as
 * usual (a file that breaks the Python parser must not break the next file's parse).
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { noTools } from "../../test/helpers/external-tools.ts";
import { openSymbolIndex } from "../codebase/symbols/index.ts";
import { runImport } from "./import.ts";
import { snapshotDirs } from "./storage.ts";

const VULNERABLE_PY = 'from flask import request\nimport os\n\ndef run():\n    os.system(request.args["c"])\n';
const handler = (body: string) => `const app = require("express")();\napp.get("/x", (req, res) => {\n${body}\n});\n`;

let base: string;

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(base, "src-"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

async function importTree(dir: string, taintBudgetMs?: number) {
  const dirs = snapshotDirs(base, "p", path.basename(dir));
  const imported = await runImport({ kind: "path", path: dir }, dirs, () => {}, {
    limits: {},
    externalToolsPath: noTools(),
    ...(taintBudgetMs !== undefined ? { taintBudgetMs } : {}),
  });
  const index = openSymbolIndex(dirs.symbols);
  const notes = new Map(index.files().map((f) => [f.path, f.note]));
  index.close();
  return { ...imported, notes };
}

beforeAll(() => {
  base = mkdtempSync(path.join(os.tmpdir(), "argus-bad-import-"));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("an import with pathological files", () => {
  let result: Awaited<ReturnType<typeof importTree>>;
  // Generated so no key-shaped literal sits in the repository.
  const key = `AKIA${"Q".repeat(8)}${randomBytes(4).toString("hex").toUpperCase()}`;

  beforeAll(async () => {
    const deepIndent = Array.from({ length: 600 }, (_, i) => `${" ".repeat(i + 1)}if request.args:`).join("\n");
    result = await importTree(
      tree({
        // 600 indentation levels overflow the Python parser's scanner (and used to break the next parse).
        "deep_indent.py": `from flask import request\nKEY = "${key}"\ndef v():\n${deepIndent}\n${" ".repeat(601)}pass\n`,
        "after.py": VULNERABLE_PY,
        "broken.py": `${VULNERABLE_PY}\ndef broken(:\n`,
        "parens.js": handler(`  res.send(${"(".repeat(600)}req.query.a${")".repeat(600)});`),
        "blocks.js": handler(`${"if (req.query.a) {\n".repeat(5000)}res.send(req.query.b);\n${"}\n".repeat(5000)}`),
        "enormous.js": handler(
          Array.from({ length: 13_000 }, (_, i) => `  const v${i} = req.query.a + "${i}";`).join("\n"),
        ),
        "fine.js": handler("  res.send(req.query.name);"),
      }),
    );
  }, 180_000);

  it("finishes, and names each file whose analysis ended early with why", () => {
    const notes = Object.fromEntries((result.summary.analysisNotes ?? []).map((n) => [n.path, n.note]));
    expect(notes).toEqual({
      "deep_indent.py": expect.stringMatching(/^indentation nested 601 levels deep \(more than 200\): not parsed$/),
      "broken.py": "taint analysis: parse errors (from line 7); analysed what parsed",
      "parens.js": "taint analysis stopped: expressions nested too deeply",
      "blocks.js": "taint analysis stopped: recursion too deep",
      "enormous.js": expect.stringMatching(/^taint analysis stopped: the function at line 2 is enormous \(\d+ KB\)$/),
    });
    // The same notes are on the files' index records, and the Argus run says how many.
    expect(result.notes.get("parens.js")).toBe(notes["parens.js"]);
    expect(result.notes.get("after.py")).toBeNull();
    expect(result.summary.tools.find((t) => t.tool === "argus")!.detail).toMatch(
      /the analysis of 5 files ended early or covered only what parsed/,
    );
  });

  it("analyses the other files as usual, and still scans a file it could not parse for secrets", () => {
    const where = result.findings.map((f) => `${f.file}:${f.startLine}:${f.ruleId}`);
    expect(where).toEqual(
      expect.arrayContaining([
        "after.py:5:injection/command",
        "broken.py:5:injection/command",
        "fine.js:3:xss/reflected",
        "deep_indent.py:2:secrets/aws-access-key",
      ]),
    );
  });
});

describe("the per-file time budget", () => {
  it("ends a slow file's taint analysis with a note; the import and the other files go on", async () => {
    const chain = Array.from({ length: 600 }, (_, i) => `  const v${i + 1} = req.query.a + v${i};`).join("\n");
    const result = await importTree(
      tree({
        "slow.js": handler(`  const v0 = 1;\n${chain}\n  res.send(v600);`),
        "after.py": VULNERABLE_PY,
      }),
      1,
    );
    expect(result.summary.analysisNotes).toEqual([
      { path: "slow.js", note: expect.stringMatching(/^taint analysis stopped: over its time budget \(\d+ steps\)$/) },
    ]);
    expect(result.findings.map((f) => `${f.file}:${f.startLine}:${f.ruleId}`)).toContain(
      "after.py:5:injection/command",
    );
  }, 120_000);
});
