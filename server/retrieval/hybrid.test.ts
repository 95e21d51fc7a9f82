/**
 * Hybrid search against a scripted index with complete, tie-free rankings: whatever depth the
 * full-text leg is asked for, the fused page must be exactly the fusion of the complete rankings,
 * and the only rows read afterwards are vector-only hits that made the page.
 */
import { describe, expect, it } from "vitest";
import { HashEmbedder } from "./embed/hash.ts";
import { reciprocalRankFusion } from "./rrf.ts";
import { HYBRID_RRF_K, HYBRID_VECTOR_DEPTH, HYBRID_WEIGHTS, search } from "./search.ts";
import type { ChunkIndex, RankedRow, StoredHit } from "./store/index.ts";

const ROWS = 500;
const embedder = new HashEmbedder({ dims: 512 }).fit(["some text"]);

/** A deterministic permutation of 0..n-1 (an LCG walk), different per seed. */
function permutation(n: number, seed: number): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  let x = seed;
  for (let i = n - 1; i > 0; i--) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    const j = x % (i + 1);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/** Row addresses unlike the chunk numbers, so a mix-up of the two shows. */
const rowId = (i: number) => BigInt(i) * 7n + 3n;

function scriptedIndex(textOrder: number[], vectorOrder: number[]) {
  const reads: { textDepths: number[]; vectorDepths: number[]; fetched: bigint[][] } = {
    textDepths: [],
    vectorDepths: [],
    fetched: [],
  };
  const row = (i: number, score: number): StoredHit => ({
    id: `c${i}`,
    rowId: rowId(i),
    file: `f${i}.ts`,
    language: "typescript",
    startLine: i + 1,
    endLine: i + 2,
    symbolPath: null,
    text: `chunk ${i}`,
    score,
  });
  // Strictly decreasing scores: no ties, so the complete ranking is well defined.
  const ranked = (order: number[], k: number): RankedRow[] =>
    order.slice(0, k).map((i, r) => ({ rowId: rowId(i), score: 100 - r }));
  const index: ChunkIndex = {
    name: "scripted",
    embedder: embedder.record(),
    embedderState: embedder.idfState(),
    version: 1,
    table: "scripted--1",
    vectorIndex: "exact",
    rowCount: async () => ROWS,
    fileHashes: async () => new Map(),
    vectorSearch: async (_v, k) => vectorOrder.slice(0, k).map((i, r) => row(i, 100 - r)),
    fullTextSearch: async (_t, k) => (reads.textDepths.push(k), textOrder.slice(0, k).map((i, r) => row(i, 100 - r))),
    vectorTexts: () => Promise.reject(new Error("hybrid search reads whole hits")),
    fullTextTexts: () => Promise.reject(new Error("hybrid search reads whole hits")),
    textsAt: () => Promise.reject(new Error("hybrid search reads whole hits")),
    rankVector: async (_v, k) => (reads.vectorDepths.push(k), ranked(vectorOrder, k)),
    fetchHits: async (rows) => {
      reads.fetched.push(rows.map((r) => r.rowId));
      return rows.map((r) => row(Number((r.rowId - 3n) / 7n), r.score));
    },
    close: () => undefined,
  };
  return { index, reads };
}

describe("hybrid search", () => {
  it.each([1, 3, 10, 25, 40])(
    "k = %i: the page is the fusion of the complete rankings; rows are read once",
    async (k) => {
      for (const seed of [1, 2, 3, 4, 5]) {
        const textOrder = permutation(ROWS, seed);
        // The vector ranking agrees with full text in places (shared hits) and not in others.
        const vectorOrder =
          seed % 2
            ? permutation(ROWS, seed + 100)
            : [
                textOrder[40]!,
                textOrder[0]!,
                textOrder[15]!,
                ...permutation(ROWS, seed + 100).filter(
                  (i) => ![textOrder[40], textOrder[0], textOrder[15]].includes(i),
                ),
              ];
        const { index, reads } = scriptedIndex(textOrder, vectorOrder);
        const got = await search(index, "anything", { mode: "hybrid", k });

        const key = (i: number) => `c${i}`;
        const complete = reciprocalRankFusion(
          [vectorOrder.slice(0, HYBRID_VECTOR_DEPTH).map(key), textOrder.map(key)],
          HYBRID_RRF_K,
          [HYBRID_WEIGHTS.vector, HYBRID_WEIGHTS.fulltext],
        ).slice(0, k);
        expect(got.map((h) => h.file)).toEqual(complete.map((f) => `f${f.id.slice(1)}.ts`));
        expect(got.map((h) => h.score)).toEqual(complete.map((f) => f.score));
        // Each hit carries its own leg scores.
        for (const h of got) {
          const i = Number(h.file.slice(1, -3));
          const t = textOrder.indexOf(i);
          if (t < reads.textDepths[0]!) expect(h.scores.fulltext).toBe(100 - t);
          const v = vectorOrder.indexOf(i);
          expect(h.scores.vector).toBe(v < HYBRID_VECTOR_DEPTH ? 100 - v : undefined);
        }
        expect(reads.vectorDepths).toEqual([HYBRID_VECTOR_DEPTH]);
        // Full text read its rows already; only vector-only hits on the page are read afterwards.
        const vectorOnly = got
          .map((h) => Number(h.file.slice(1, -3)))
          .filter((i) => textOrder.indexOf(i) >= reads.textDepths[0]!);
        expect(reads.fetched).toEqual([vectorOnly.map(rowId)]);
        if (k <= 10) expect(reads.textDepths[0]).toBeLessThan(100);
      }
    },
  );

  it("for a large k (where no depth is provably enough) full text is read as deep as before: max(k, 100)", async () => {
    const { index, reads } = scriptedIndex(permutation(ROWS, 9), permutation(ROWS, 10));
    await search(index, "anything", { mode: "hybrid", k: 60 });
    await search(index, "anything", { mode: "hybrid", k: 300 });
    expect(reads.textDepths).toEqual([100, 300]);
  });

  it("when full text finds fewer than k, vector-only hits fill the page and are read by address", async () => {
    const textOrder = [5, 9, 2];
    const vectorOrder = [9, 400, 7, 5, 123, ...permutation(ROWS, 11).filter((i) => ![9, 400, 7, 5, 123].includes(i))];
    const { index, reads } = scriptedIndex(textOrder, vectorOrder);
    const got = await search(index, "anything", { mode: "hybrid", k: 6 });
    expect(got.map((h) => h.file)).toEqual(["f5.ts", "f9.ts", "f2.ts", "f400.ts", "f7.ts", "f123.ts"]);
    expect(got.map((h) => h.snippet)).toEqual(["chunk 5", "chunk 9", "chunk 2", "chunk 400", "chunk 7", "chunk 123"]);
    expect(got[3]!.scores).toEqual({ vector: 99 });
    expect(reads.fetched).toEqual([[rowId(400), rowId(7), rowId(123)]]);
  });
});
