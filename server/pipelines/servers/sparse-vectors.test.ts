/**
 * The in-process exact search over sparse vectors (sparse-vectors.ts) ranks exactly as a full scan of
 * dot products does — negative scores, untouched rows and ties included — and its postings are used
 * only for the index version they were written for.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../engine/test-support.ts";
import { writeNpy } from "./npy.ts";
import { PythonRandom } from "./python-random.ts";
import { loadSparseIndex, sparseTopK, writeSparseIndex } from "./sparse-vectors.ts";

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

const owner = { paramsHash: "h1", table: "t--1", version: 3 };

/** Vectors with a few non-zero entries of either sign, some rows all zero. */
function sparseRows(rand: PythonRandom, rows: number, dims: number, perRow: number): Float32Array[] {
  return Array.from({ length: rows }, (_, i) => {
    const v = new Float32Array(dims);
    if (i % 7 === 3) return v;
    for (let j = 0; j < perRow; j++) v[Math.floor(rand.random() * dims)] = Math.round((rand.random() * 2 - 1) * 8) / 8;
    return v;
  });
}

function scanTopK(rows: readonly Float32Array[], q: Float32Array, k: number): number[] {
  const dot = (v: Float32Array) => {
    let s = 0;
    for (let d = 0; d < v.length; d++) s += Math.fround(v[d]! * q[d]!);
    return s;
  };
  return rows
    .map((v, i) => ({ i, s: dot(v) }))
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .slice(0, k)
    .map((x) => x.i);
}

describe("sparse postings", () => {
  it("rank every query exactly as a full scan of dot products", async () => {
    const rand = new PythonRandom(3);
    const rows = sparseRows(rand, 400, 64, 5);
    await writeNpy(path.join(dir, "e.npy"), rows, 64);
    expect(await writeSparseIndex(path.join(dir, "e.npy"), path.join(dir, "p"), owner)).toBe(true);
    const index = (await loadSparseIndex(path.join(dir, "p"), owner))!;
    expect(index.rows).toBe(400);
    for (const q of sparseRows(rand, 60, 64, 3))
      for (const k of [1, 5, 40]) expect(sparseTopK(index, q, k)).toEqual(scanTopK(rows, q, k));
    // A query that touches nothing: the first rows, all at score 0; k beyond the rows: every row once.
    expect(sparseTopK(index, new Float32Array(64), 3)).toEqual([0, 1, 2]);
    expect(new Set(sparseTopK(index, sparseRows(rand, 1, 64, 3)[0]!, 1000)).size).toBe(400);
  });

  it("are not used for another index version, and are not written for dense vectors", async () => {
    const rand = new PythonRandom(5);
    await writeNpy(path.join(dir, "s.npy"), sparseRows(rand, 50, 32, 2), 32);
    await writeSparseIndex(path.join(dir, "s.npy"), path.join(dir, "p"), owner);
    expect(await loadSparseIndex(path.join(dir, "p"), { ...owner, version: 4 })).toBeNull();
    expect(await loadSparseIndex(path.join(dir, "p"), { ...owner, paramsHash: "h2" })).toBeNull();
    expect(await loadSparseIndex(path.join(dir, "missing"), owner)).toBeNull();

    const dense = Array.from({ length: 50 }, () => Float32Array.from({ length: 32 }, () => rand.random() + 0.1));
    await writeNpy(path.join(dir, "d.npy"), dense, 32);
    expect(await writeSparseIndex(path.join(dir, "d.npy"), path.join(dir, "p"), owner)).toBe(false);
    expect(existsSync(path.join(dir, "p"))).toBe(false);
  });
});
