import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runSearchCli } from "./search.ts";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "argus-search-cli-"));
  await mkdir(path.join(dir, "src"));
  await writeFile(
    path.join(dir, "src/config.ts"),
    "export function parseConfigFile(path: string) {\n  return JSON.parse(path);\n}\n",
  );
  await writeFile(path.join(dir, "src/math.py"), "def add_numbers(a, b):\n    return a + b\n");
  await writeFile(
    path.join(dir, "queries.jsonl"),
    '{"query": "config", "id": "q1"}\n"add numbers"\n{"query": "   ", "id": "blank"}\n',
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function run(argv: string[]) {
  const out: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((line: string) => void out.push(line));
  const err = vi.spyOn(console, "error").mockImplementation(() => undefined);
  try {
    return { code: await runSearchCli(argv), out };
  } finally {
    log.mockRestore();
    err.mockRestore();
  }
}

describe("argus search", () => {
  it("batch mode prints one JSON line per query with ranked file:line hits (and the error of a bad one)", async () => {
    const { code, out } = await run([
      dir,
      "--queries",
      path.join(dir, "queries.jsonl"),
      "-k",
      "2",
      "--mode",
      "fulltext",
    ]);
    expect(code).toBe(0);
    const lines = out.map(
      (l) => JSON.parse(l) as { id?: string; query: string; hits?: { file: string; line: number }[]; error?: string },
    );
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({ id: "q1", query: "config" });
    expect(lines[0]!.hits![0]).toMatchObject({ file: "src/config.ts", line: 1 });
    expect(lines[1]!.hits![0]).toMatchObject({ file: "src/math.py", line: 1 });
    expect(lines[2]).toMatchObject({ id: "blank" });
    expect(lines[2]!.error).toBeTruthy();
  }, 60_000);

  it("labels hits strong or weak, and says there is no good match for a query about nothing in the code", async () => {
    const real = await run([dir, "--query", "parse the config file", "--json"]);
    const line = JSON.parse(real.out[0]!) as {
      noGoodMatch: boolean;
      hits: { file: string; match: string; relevance: number }[];
    };
    expect(line.noGoodMatch).toBe(false);
    expect(line.hits[0]).toMatchObject({ file: "src/config.ts", match: "strong" });
    const nonsense = await run([dir, "--query", "best pizza dough recipe"]);
    expect(nonsense.code).toBe(0);
    expect(nonsense.out[0]).toBe('No good match for "best pizza dough recipe". The nearest hits:');
    expect(nonsense.out.slice(1).every((l) => l.trimStart().startsWith("weak"))).toBe(true);
    const human = await run([dir, "--query", "parse the config file"]);
    expect(human.out[1]).toMatch(/^ {2}strong {2}src\/config\.ts:1-3 {2}parseConfigFile {2}\(relevance [01]\.\d\d\)$/);
  }, 60_000);

  it("usage errors exit 2", async () => {
    expect((await run([dir])).code).toBe(2);
    expect((await run([dir, "--query", "x", "--mode", "fuzzy"])).code).toBe(2);
    expect((await run([path.join(dir, "missing"), "--query", "x"])).code).toBe(2);
  });
});
