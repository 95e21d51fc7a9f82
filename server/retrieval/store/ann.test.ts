import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HashEmbedder } from "../embed/hash.ts";
import { fusionFor } from "../fusion.ts";
import { search } from "../search.ts";
import { splitIdentifiersInText } from "../split-identifiers.ts";
import { readEntry } from "./catalog.ts";
import {
  connect,
  openChunkIndex,
  optimizeIndex,
  replaceIndex,
  updateIndex,
  type ChunkIndex,
  type ChunkRow,
  type Store,
} from "./index.ts";

/** Distinct, realistic-looking chunks: each combines words of a small vocabulary differently. */
const WORDS =
  "parse config file retry backoff session token cache evict socket room join chunk overlap index vector search query user account billing invoice render page route handler stream buffer encode decode hash verify sign upload".split(
    " ",
  );
const LANGS = ["typescript", "python", "go"];

function chunkText(i: number): string {
  const w = (j: number) => WORDS[(i * 7 + j * 13 + Math.floor(i / WORDS.length)) % WORDS.length]!;
  const name = `${w(0)}${w(1)[0]!.toUpperCase()}${w(1).slice(1)}${i}`;
  return `function ${name}(${w(2)}, ${w(3)}) {\n  return ${w(4)}(${w(5)}, "${w(6)} ${w(7)}");\n}`;
}

function rows(embedder: HashEmbedder, from: number, to: number, prefix = "src"): ChunkRow[] {
  return Array.from({ length: to - from }, (_, j) => {
    const i = from + j;
    const text = chunkText(i);
    const file = `${prefix}/${LANGS[i % 3]}/f${i}.x`;
    return {
      id: `${file}#0`,
      file,
      language: LANGS[i % 3]!,
      startLine: 1,
      endLine: 3,
      symbolPath: null,
      symbolKinds: [i % 2 ? "function" : "method"],
      text,
      searchText: splitIdentifiersInText(`${file} ${text}`, { keepOriginal: true }),
      contentHash: `h${i}`,
      vector: embedder.embedOne(text),
    };
  });
}

const ROWS = 600;
const THRESHOLD = 300;
let dir: string;
let store: Store;
let embedder: HashEmbedder;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "argus-ann-"));
  store = await connect(path.join(dir, "lancedb"));
  embedder = new HashEmbedder({ dims: 512 }).fit(Array.from({ length: ROWS }, (_, i) => chunkText(i)));
});
afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function build(name: string, annThreshold: number): Promise<ChunkIndex> {
  const write = await replaceIndex(store, name, {
    embedder: embedder.record(),
    embedderState: embedder.idfState(),
    rows: rows(embedder, 0, ROWS),
    annThreshold,
  });
  expect(write.plan.vector).toBe(annThreshold <= ROWS ? "ivf_rq" : "exact");
  return (await openChunkIndex(store, name))!;
}

describe("vector index by table size", () => {
  let exact: ChunkIndex;
  let ann: ChunkIndex;
  beforeAll(async () => {
    exact = await build("small", ROWS + 1);
    ann = await build("large", THRESHOLD);
  });
  afterAll(() => {
    exact.close();
    ann.close();
  });

  it("uses an exact scan below the threshold and the ANN index above it", () => {
    expect(exact.vectorIndex).toBe("exact");
    expect(ann.vectorIndex).toBe("ivf_rq");
  });

  it("the ANN index returns what the exact scan returns (recall@10 ≥ 0.95) with the same scores", async () => {
    let found = 0;
    let total = 0;
    for (let i = 0; i < 40; i++) {
      const q = embedder.embedOne(chunkText(i * 13));
      const truth = await exact.vectorSearch(q, 10);
      const got = await ann.vectorSearch(q, 10);
      const cut = truth[truth.length - 1]!.score - 1e-6;
      found += got.filter((h) => h.score >= cut).length;
      total += truth.length;
      // The chunk itself is its own nearest neighbour, with cosine 1 either way.
      expect(got[0]!.id).toBe(truth[0]!.id);
      expect(got[0]!.score).toBeCloseTo(truth[0]!.score, 3);
    }
    expect(found / total).toBeGreaterThanOrEqual(0.95);
  });

  it("`exact` bypasses the ANN index", async () => {
    const q = embedder.embedOne("retry backoff session");
    expect((await ann.vectorSearch(q, 10, undefined, { exact: true })).map((h) => h.id)).toEqual(
      (await exact.vectorSearch(q, 10)).map((h) => h.id),
    );
  });

  it("filters apply with the ANN index (language, path glob, symbol kind)", async () => {
    const byLanguage = await search(ann, chunkText(7), { mode: "vector", k: 20, filters: { language: "python" } });
    expect(byLanguage).toHaveLength(20);
    expect(byLanguage.every((h) => h.language === "python")).toBe(true);
    expect(byLanguage[0]!.file).toBe("src/python/f7.x");

    const byPath = await search(ann, chunkText(8), { mode: "hybrid", k: 5, filters: { pathGlob: "src/go/**" } });
    expect(byPath.length).toBeGreaterThan(0);
    expect(byPath.every((h) => h.file.startsWith("src/go/"))).toBe(true);
    expect(byPath[0]!.file).toBe("src/go/f8.x");

    // A filter that excludes the nearest chunk: the best remaining match, not nothing.
    const byKind = await search(ann, chunkText(9), { mode: "vector", k: 5, filters: { symbolKind: "method" } });
    expect(byKind).toHaveLength(5);
    expect(byKind.map((h) => h.file)).not.toContain("src/typescript/f9.x");
    expect((await search(ann, chunkText(9), { mode: "vector", k: 1 }))[0]!.file).toBe("src/typescript/f9.x");
    expect(await search(ann, chunkText(9), { mode: "vector", filters: { language: "cobol" } })).toEqual([]);
  });

  it("hybrid on the ANN index: each hit is the row its scores came from", async () => {
    const query = chunkText(11);
    const vector = await ann.vectorSearch(embedder.embedOne(query), fusionFor(ann.embedder).depth);
    const got = await search(ann, query, { mode: "hybrid" });
    expect(got[0]!.file).toBe("src/go/f11.x");
    expect(got[0]!.snippet).toContain(query.split("\n")[0]);
    // The page is read by row address after fusion: a mix-up would pair a row with another's scores.
    for (const h of got)
      if (h.scores.vector !== undefined)
        expect(vector.find((v) => v.file === h.file)?.score).toBeCloseTo(h.scores.vector, 6);
    expect(got.filter((h) => h.scores.vector !== undefined).length).toBeGreaterThan(0);
  });
});

describe("layout", () => {
  it("a full build larger than one write batch is stored as one fragment (every hit read touches one file)", async () => {
    const big = new HashEmbedder({ dims: 512 }).fit(Array.from({ length: 2_500 }, (_, i) => chunkText(i)));
    await replaceIndex(store, "batches", {
      embedder: big.record(),
      embedderState: big.idfState(),
      rows: rows(big, 0, 2_500),
      annThreshold: 100_000,
    });
    const entry = (await readEntry(store.db, "batches"))!;
    const table = await store.db.openTable(entry.table);
    try {
      expect((await table.stats()).fragmentStats.numFragments).toBe(1);
      expect(await table.countRows()).toBe(2_500);
    } finally {
      table.close();
    }
    const index = (await openChunkIndex(store, "batches"))!;
    try {
      expect((await search(index, chunkText(2_222), { mode: "hybrid", k: 1 }))[0]!.file).toBe("src/go/f2222.x");
    } finally {
      index.close();
    }
  });
});

describe("incremental updates on an ANN-indexed table", () => {
  it("finds appended rows before maintenance, reports maintenance due, and optimizeIndex folds them in", async () => {
    const name = "grow";
    await replaceIndex(store, name, {
      embedder: embedder.record(),
      embedderState: embedder.idfState(),
      rows: rows(embedder, 0, ROWS),
      annThreshold: THRESHOLD,
    });
    const fresh = rows(embedder, 0, 100, "new");
    let last;
    // Nine small appends: nine small fragments (the threshold is eight).
    for (let i = 0; i < 9; i++)
      last = await updateIndex(store, name, {
        embedder: embedder.record(),
        removeFiles: [],
        rows: fresh.slice(i * 10, i * 10 + 10),
        annThreshold: THRESHOLD,
      });
    expect(last!.maintenanceDue).toBe(true);

    const before = (await openChunkIndex(store, name))!;
    const probe = fresh[42]!;
    const hits = await before.vectorSearch(probe.vector, 2);
    // Row 42 exists twice (src/ and new/): both, exact-equal, whatever the index covers.
    expect(new Set(hits.map((h) => h.file))).toEqual(new Set(["new/typescript/f42.x", "src/typescript/f42.x"]));
    before.close();

    const result = await optimizeIndex(store, name);
    expect(result.optimized).toBe(true);
    expect(result.before.smallFragments).toBeGreaterThanOrEqual(8);
    expect(result.after!.due).toBe(false);
    expect(result.after!.unindexedRows).toBe(0);

    const after = (await openChunkIndex(store, name))!;
    try {
      expect(after.version).toBeGreaterThan(before.version);
      expect(await after.rowCount()).toBe(ROWS + 90);
      expect(new Set((await after.vectorSearch(probe.vector, 2)).map((h) => h.file))).toEqual(
        new Set(["new/typescript/f42.x", "src/typescript/f42.x"]),
      );
    } finally {
      after.close();
    }
  });

  it("optimizeIndex leaves the catalog alone when a writer has uncommitted versions", async () => {
    const name = "busy";
    await replaceIndex(store, name, {
      embedder: embedder.record(),
      embedderState: embedder.idfState(),
      rows: rows(embedder, 0, 50),
    });
    const index = (await openChunkIndex(store, name))!;
    const version = index.version;
    index.close();
    // A writer that died after committing rows, before moving the catalog.
    const table = await store.db.openTable((await store.db.tableNames()).find((t) => t.startsWith(`${name}--`))!);
    await table.delete("file = 'src/typescript/f0.x'");
    table.close();
    expect((await optimizeIndex(store, name)).optimized).toBe(false);
    const again = (await openChunkIndex(store, name))!;
    expect(again.version).toBe(version);
    expect(await again.rowCount()).toBe(50);
    again.close();
  });
});
