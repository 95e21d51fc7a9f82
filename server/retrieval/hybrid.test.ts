/**
 * Hybrid search against a scripted index with tie-free rankings: the page must be exactly the
 * normalised-score fusion of the two legs' lists at the configured depth, only the page's rows are
 * read (once), and an
 * index with feedback (a local embedder of the prose profile) searches the vector leg a second time
 * with a query moved towards the first page.
 */
import { describe, expect, it } from "vitest";
import { HashEmbedder } from "./embed/hash.ts";
import { LocalEmbedder } from "./embed/local.ts";
import type { Embedder } from "./embed/types.ts";
import { FUSION } from "./fusion.ts";
import { search } from "./search.ts";
import type { ChunkIndex, RankedRow, StoredHit } from "./store/index.ts";

const ROWS = 500;
const hash = new HashEmbedder({ dims: 512 }).fit(["some text"]);
const prose = new LocalEmbedder().fit(
  ["wing lift and drag at high speed", "boundary layer heat transfer", "shock waves on a cone"],
  1,
);

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
/** Leg scores: strictly decreasing and unevenly spaced (normalisation must use the real spread). */
const legScore = (r: number) => 10 / (r + 1) + 1;

function scriptedIndex(textOrder: number[], vectorOrders: number[][], embedder: Embedder, state: unknown) {
  const reads = {
    textDepths: [] as number[],
    vectorDepths: [] as number[],
    vectors: [] as Float32Array[],
    fetched: [] as bigint[][],
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
  const index: ChunkIndex = {
    name: "scripted",
    embedder: embedder.record(),
    embedderState: state,
    version: 1,
    table: "scripted--1",
    vectorIndex: "exact",
    layout: 2,
    rowCount: async () => ROWS,
    fileHashes: async () => new Map(),
    vectorSearch: async (_v, k) => vectorOrders[0]!.slice(0, k).map((i, r) => row(i, legScore(r))),
    fullTextSearch: async (_t, k) => textOrder.slice(0, k).map((i, r) => row(i, legScore(r))),
    rankFullText: async (_t, k) => (
      reads.textDepths.push(k),
      textOrder.slice(0, k).map((i, r): RankedRow => ({ rowId: rowId(i), score: legScore(r) }))
    ),
    vectorTexts: () => Promise.reject(new Error("hybrid search reads whole hits")),
    fullTextTexts: () => Promise.reject(new Error("hybrid search reads whole hits")),
    rankVector: async (v, k) => {
      reads.vectorDepths.push(k);
      reads.vectors.push(v);
      const order = vectorOrders[Math.min(reads.vectors.length - 1, vectorOrders.length - 1)]!;
      return order.slice(0, k).map((i, r): RankedRow => ({ rowId: rowId(i), score: legScore(r) }));
    },
    textsAt: () => Promise.reject(new Error("hybrid search reads whole hits")),
    fetchHits: async (rows) => {
      reads.fetched.push(rows.map((r) => r.rowId));
      return rows.map((r) => row(Number((r.rowId - 3n) / 7n), r.score));
    },
    close: () => undefined,
  };
  return { index, reads };
}

/** The expected fusion, computed from the definition: min–max per list, text + w × vector. */
function expected(textOrder: number[], vectorOrder: number[], depth: number, w: number) {
  const norm = (order: number[]) => {
    const list = order.slice(0, depth);
    const max = legScore(0);
    const min = legScore(list.length - 1);
    return new Map(list.map((i, r) => [i, (legScore(r) - min) / (max - min)]));
  };
  const t = norm(textOrder);
  const v = norm(vectorOrder);
  const ids = new Set([...t.keys(), ...v.keys()]);
  return [...ids]
    .map((i) => ({ i, score: (t.get(i) ?? 0) + w * (v.get(i) ?? 0) }))
    .sort(
      (a, b) =>
        b.score - a.score || (t.has(a.i) ? textOrder.indexOf(a.i) : 1e9) - (t.has(b.i) ? textOrder.indexOf(b.i) : 1e9),
    );
}

describe("hybrid search", () => {
  it.each([1, 3, 10, 25, 40])("k = %i: the page is the fusion of the two lists; rows are read once", async (k) => {
    const depth = Math.max(k, FUSION.hash.depth);
    const { vectorWeight } = FUSION.hash;
    for (const seed of [1, 2, 3, 4, 5]) {
      const textOrder = permutation(ROWS, seed);
      const vectorOrder =
        seed % 2
          ? permutation(ROWS, seed + 100)
          : [
              textOrder[40]!,
              textOrder[0]!,
              ...permutation(ROWS, seed + 100).filter((i) => i !== textOrder[40] && i !== textOrder[0]),
            ];
      const { index, reads } = scriptedIndex(textOrder, [vectorOrder], hash, hash.idfState());
      const got = await search(index, "anything", { mode: "hybrid", k });
      const want = expected(textOrder, vectorOrder, depth, vectorWeight).slice(0, k);
      expect(got.map((h) => h.file)).toEqual(want.map((f) => `f${f.i}.ts`));
      for (const [j, h] of got.entries()) expect(h.score).toBeCloseTo(want[j]!.score, 12);
      expect(reads.textDepths).toEqual([depth]);
      expect(reads.vectorDepths).toEqual([depth]);
      // Each hit carries its own legs' raw scores.
      for (const h of got) {
        const i = Number(h.file.slice(1, -3));
        const t = textOrder.indexOf(i);
        const v = vectorOrder.indexOf(i);
        expect(h.scores.fulltext).toBe(t < depth ? legScore(t) : undefined);
        expect(h.scores.vector).toBe(v < depth ? legScore(v) : undefined);
      }
      // Neither leg read a row: the page is read once, after fusion.
      expect(reads.fetched).toEqual([got.map((h) => rowId(Number(h.file.slice(1, -3))))]);
    }
  });

  it("a k deeper than the fusion depth reads both legs k deep", async () => {
    const { index, reads } = scriptedIndex(permutation(ROWS, 9), [permutation(ROWS, 10)], hash, hash.idfState());
    await search(index, "anything", { mode: "hybrid", k: 300 });
    expect(reads.textDepths).toEqual([300]);
    expect(reads.vectorDepths).toEqual([300]);
  });

  it("when full text finds fewer than k, vector-only hits fill the page; rows are read by address", async () => {
    const textOrder = [5, 9, 2];
    const vectorOrder = [9, 400, 7, 5, 123, ...permutation(ROWS, 11).filter((i) => ![9, 400, 7, 5, 123].includes(i))];
    const { index, reads } = scriptedIndex(textOrder, [vectorOrder], hash, hash.idfState());
    const got = await search(index, "anything", { mode: "hybrid", k: 6 });
    // Full text found all it could (3 < the depth): its scores count from 0, so even its last hit
    // keeps a vote (2: 4.3 / 11). 5 leads full text by far and keeps the lead; vector-only chunks fill
    // the rest in vector order.
    expect(got.map((h) => h.file)).toEqual(["f5.ts", "f9.ts", "f2.ts", "f400.ts", "f7.ts", "f123.ts"]);
    expect(got.find((h) => h.file === "f400.ts")!.scores).toEqual({ vector: legScore(1) });
    expect(reads.fetched).toEqual([[5, 9, 2, 400, 7, 123].map(rowId)]);
  });

  it("with feedback (prose profile) the vector leg runs again from the first page, and the page fuses that run", async () => {
    expect(prose.profile).toBe("prose");
    const textOrder = permutation(ROWS, 21);
    const first = permutation(ROWS, 22);
    const second = permutation(ROWS, 23);
    const { index, reads } = scriptedIndex(textOrder, [first, second], prose, prose.state());
    const { depth, vectorWeight, feedback } = FUSION.prose;
    const got = await search(index, "lift on a wing", { mode: "hybrid", k: 10 });
    expect(reads.vectorDepths).toEqual([depth, depth]);
    // The second query vector is the first plus the feedback chunks' vectors: a different direction.
    const [q1, q2] = reads.vectors;
    expect(q2).not.toEqual(q1);
    const feedbackChunks = expected(textOrder, first, depth, vectorWeight).slice(0, feedback.docs);
    const moved = Float32Array.from(q1!);
    const vectors = await prose.embedQueries(feedbackChunks.map((f) => `chunk ${f.i}`));
    for (const f of vectors)
      for (let i = 0; i < moved.length; i++) moved[i]! += (feedback.weight / vectors.length) * f[i]!;
    for (let i = 0; i < moved.length; i++) expect(q2![i]).toBeCloseTo(moved[i]!, 6);
    expect(got.map((h) => h.file)).toEqual(
      expected(textOrder, second, depth, vectorWeight)
        .slice(0, 10)
        .map((f) => `f${f.i}.ts`),
    );
  });
});
