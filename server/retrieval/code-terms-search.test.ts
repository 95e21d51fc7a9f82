/**
 * The doc-word → code-word table in search (text/code-terms.ts, the re-rank in fusion.ts /
 * search.ts), against a real LanceDB index: a question in English finds the function that says it
 * in code's words, none of the question's own words but `value` in either candidate.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FUSION } from "./fusion.ts";
import { indexSnapshot } from "./index-snapshot.ts";
import { search } from "./search.ts";
import { connect, openChunkIndex, type ChunkIndex, type Store } from "./store/index.ts";

const FILES: Record<string, string> = {
  "lib/items.js": `export function hasNoItems(value) {
  return value.length === 0;
}
`,
  "lib/double.js": `export function double(value) {
  const result = value * 2;
  return result;
}
`,
  "lib/format.js": `export function formatName(first, last) {
  return first + " " + last;
}
`,
  "lib/sum.js": `export function sum(a, b) {
  return a + b;
}
`,
};

let dir: string;
let store: Store;
let index: ChunkIndex;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "argus-code-terms-"));
  const root = path.join(dir, "src");
  for (const [rel, text] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  store = await connect(path.join(dir, "lancedb"));
  await indexSnapshot(
    store,
    "code-terms",
    root,
    Object.keys(FILES).map((p) => ({ path: p, language: "javascript" })),
  );
  index = (await openChunkIndex(store, "code-terms"))!;
});

afterAll(() => {
  index?.close();
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("search over code with the doc-word → code-word table", () => {
  const QUERY = "Check whether the value is empty";

  it("ranks the function that checks for no items first, by its code words (has, length)", async () => {
    const hits = await search(index, QUERY, { k: 4 });
    expect(hits[0]?.file).toBe("lib/items.js");
  });

  it("without the table the shorter distractor with the same one shared word wins", async () => {
    const rerank = FUSION.code.rerank as { translation: number };
    const saved = rerank.translation;
    rerank.translation = 0;
    try {
      const hits = await search(index, QUERY, { k: 4 });
      expect(hits[0]?.file).toBe("lib/double.js");
    } finally {
      rerank.translation = saved;
    }
  });
});
