import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { readSources } from "./read-sources.ts";

const root = mkdtempSync(path.join(tmpdir(), "argus-read-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

it("reads every file in order across slices, naming the ones too large or missing", async () => {
  const names = Array.from({ length: 150 }, (_, i) => `f${i}.ts`);
  for (const [i, f] of names.entries()) writeFileSync(path.join(root, f), `export const v${i} = ${i};\n`);
  writeFileSync(path.join(root, "big.ts"), "x".repeat(200));
  const list = [...names.slice(0, 70), "big.ts", "gone.ts", ...names.slice(70)].map((p) => ({ path: p }));

  const got: string[] = [];
  for await (const r of readSources(root, list, 100))
    got.push("skipped" in r ? `${r.file.path}: ${r.skipped}` : `${r.file.path}: ${r.source.toString().trim()}`);

  expect(got).toHaveLength(152);
  expect(got[0]).toBe("f0.ts: export const v0 = 0;");
  expect(got[70]).toBe("big.ts: larger than 100 bytes");
  expect(got[71]).toBe("gone.ts: ENOENT");
  expect(got[151]).toBe("f149.ts: export const v149 = 149;");
});
