/**
 * Hybrid search against a scripted index with complete, tie-free rankings: whatever depth the
 * full-text leg is asked for, the fused page must be exactly the fusion of the complete rankings,
 * and the rows read must be only that page's.
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

function scriptedIndex(textOrder: number[], vectorOrder: number[]) {
  const reads: { textDepths: number[]; vectorDepths: number[]; fetched: bigint[][] } = { textDepths: [], vectorDepths: [], fetched: [] };
  const row = (i: number, score: number): StoredHit => ({ id: `c${i}`, file: `f${i}.ts`, language: "typescript", startLine: i + 1, endLine: i + 2, symbolPath: null, text: `chunk ${i}`, score });
  // Strictly decreasing scores: no ties, so the complete ranking is well defined.
  const ranked = (order: number[], k: number): RankedRow[] => order.slice(0, k).map((i, r) => ({ rowId: BigInt(i) * 7n + 3n, score: 100 - r }));
  const index: ChunkIndex = {
    name: "scripted",
    embedder: embedder.record(),
    embedderState: embedder.idfState(),
    version: 1,
    vectorIndex: "exact",
    rowCount: async () => ROWS,
    fileHashes: async () => new Map(),
    vectorSearch: async (_v, k) => vectorOrder.slice(0, k).map((i, r) => row(i, 100 - r)),
    fullTextSearch: async (_t, k) => textOrder.slice(0, k).map((i, r) => row(i, 100 - r)),
    rankVector: async (_v, k) => (reads.vectorDepths.push(k), ranked(vectorOrder, k)),
    rankFullText: async (_t, k) => (reads.textDepths.push(k), ranked(textOrder, k)),
    fetchHits: async (rows) => {
      reads.fetched.push(rows.map((r) => r.rowId));
      return rows.map((r) => row(Number((r.rowId - 3n) / 7n), r.score));
    },
    close: () => undefined,
  };
  return { index, reads };
}

describe("hybrid search", () => {
  it.each([1, 3, 10, 25, 40])("k = %i: the page is the fusion of the complete rankings, and only its rows are read", async (k) => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const textOrder = permutation(ROWS, seed);
      // The vector ranking agrees with full text in places (shared hits) and not in others.
      const vectorOrder = seed % 2 ? permutation(ROWS, seed + 100) : [textOrder[40]!, textOrder[0]!, textOrder[15]!, ...permutation(ROWS, seed + 100).filter((i) => ![textOrder[40], textOrder[0], textOrder[15]].includes(i))];
      const { index, reads } = scriptedIndex(textOrder, vectorOrder);
      const got = await search(index, "anything", { mode: "hybrid", k });

      const key = (i: number) => `c${i}`;
      const complete = reciprocalRankFusion([vectorOrder.slice(0, HYBRID_VECTOR_DEPTH).map(key), textOrder.map(key)], HYBRID_RRF_K, [HYBRID_WEIGHTS.vector, HYBRID_WEIGHTS.fulltext]).slice(0, k);
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
      expect(reads.fetched).toEqual([got.map((h) => BigInt(Number(h.file.slice(1, -3))) * 7n + 3n)]);
      if (k <= 10) expect(reads.textDepths[0]).toBeLessThan(100);
    }
  });

  it("for a large k (where no depth is provably enough) full text is read as deep as before: max(k, 100)", async () => {
    const { index, reads } = scriptedIndex(permutation(ROWS, 9), permutation(ROWS, 10));
    await search(index, "anything", { mode: "hybrid", k: 60 });
    await search(index, "anything", { mode: "hybrid", k: 300 });
    expect(reads.textDepths).toEqual([100, 300]);
  });
});
