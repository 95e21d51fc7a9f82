/**
 * Exact dense search for sparse vectors, in process. The hash embedder's vectors are mostly zeros (a
 * 60-word passage lights ~110 of 1,024 dimensions, a 6-word question ~11), so the dot product of a
 * question with every passage is a walk over the postings of the question's few dimensions, not a
 * scan of every vector: at 100k passages ~120k multiply-adds, a fraction of a millisecond, and exact
 * (LanceDB's quantized ANN scan costs 4–9 ms a query and recalls ~99%).
 *
 * retriever_index writes the postings beside the LanceDB index (`writeSparseIndex`, two streaming
 * passes over the .npy: counts, then fill) when the vectors are sparse enough to pay; a search loads
 * them once per process (cached by file and modification time) and falls back to LanceDB when they
 * are missing or do not belong to the index it opened. Column-major (CSR by dimension) typed arrays;
 * one score buffer per index, reused (scoring is synchronous, so queries never share it at once).
 */
import { open, readFile, rename, rm, stat } from "node:fs/promises";
import { openNpy } from "./npy.ts";

const MAGIC = "ASPV";
const FORMAT = 1;
/** Above this share of non-zero entries the postings are not worth their memory (LanceDB instead). */
const MAX_DENSITY = 0.25;
/** Dimensions set in more than half the rows that a walk over postings can afford: a query touching
 * them reads every row once per dimension. The local embedder's vectors (embed/local.ts) are sparse in
 * their lexical 512 and dense in their latent 128, so a query would cost 128 × rows multiply-adds
 * (~13–25 ms at 100k rows in JS) against LanceDB's 4–9 ms; they go to LanceDB. */
const MAX_DENSE_DIMS = 8;
const BATCH = 2_000;

/** What the postings must match to be used for an index: the same vectors in the same table version. */
export interface SparseOwner {
  paramsHash: string;
  table: string;
  version: number;
}

interface Header extends SparseOwner {
  format: number;
  rows: number;
  dims: number;
  nnz: number;
}

export interface SparseIndex {
  readonly rows: number;
  readonly dims: number;
  /** Postings of dimension d: `docs/weights[start[d] .. start[d + 1])`. */
  readonly start: Uint32Array;
  readonly docs: Uint32Array;
  readonly weights: Float32Array;
  /** Every row's score for the current query, reused. */
  readonly scores: Float32Array;
}

/**
 * Writes the postings of the .npy's rows to `out` (atomically); false (and no file) when the vectors
 * are too dense for it to pay.
 */
export async function writeSparseIndex(npyFile: string, out: string, owner: SparseOwner): Promise<boolean> {
  await rm(out, { force: true });
  const npy = await openNpy(npyFile);
  const { rows, dims } = npy;
  const limit = rows * dims * MAX_DENSITY;
  const counts = new Uint32Array(dims);
  let nnz = 0;
  try {
    for await (const batch of npy.batches(BATCH))
      for (const v of batch) {
        for (let d = 0; d < dims; d++)
          if (v[d] !== 0) {
            counts[d]!++;
            nnz++;
          }
        if (nnz > limit) return false;
      }
  } finally {
    await npy.close();
  }
  let denseDims = 0;
  for (let d = 0; d < dims; d++) if (counts[d]! > rows / 2) denseDims++;
  if (denseDims > MAX_DENSE_DIMS) return false;
  const start = new Uint32Array(dims + 1);
  for (let d = 0; d < dims; d++) start[d + 1] = start[d]! + counts[d]!;
  const docs = new Uint32Array(nnz);
  const weights = new Float32Array(nnz);
  const fill = start.slice(0, dims);
  const again = await openNpy(npyFile);
  try {
    let row = 0;
    for await (const batch of again.batches(BATCH))
      for (const v of batch) {
        for (let d = 0; d < dims; d++) {
          const w = v[d]!;
          if (w === 0) continue;
          const at = fill[d]!++;
          docs[at] = row;
          weights[at] = w;
        }
        row++;
      }
  } finally {
    await again.close();
  }
  const header: Header = { format: FORMAT, rows, dims, nnz, ...owner };
  const json = Buffer.from(JSON.stringify(header));
  const pad = (4 - ((8 + json.length) % 4)) % 4;
  const prefix = Buffer.alloc(8 + json.length + pad, 0x20);
  prefix.write(MAGIC, 0, "latin1");
  prefix.writeUInt32LE(json.length + pad, 4);
  json.copy(prefix, 8);
  const tmp = `${out}.${process.pid}.tmp`;
  const file = await open(tmp, "w");
  try {
    for (const part of [prefix, start, docs, weights]) {
      const bytes = part instanceof Buffer ? part : new Uint8Array(part.buffer, part.byteOffset, part.byteLength);
      await file.write(bytes);
    }
  } finally {
    await file.close();
  }
  await rename(tmp, out);
  return true;
}

const loaded = new Map<string, { mtimeMs: number; size: number; index: SparseIndex; owner: SparseOwner }>();
/** Postings kept loaded (each ~90 MB at 100k passages). */
const MAX_LOADED = 2;

/** The postings at `file` if they exist and belong to `owner` (else null: search LanceDB). */
export async function loadSparseIndex(file: string, owner: SparseOwner): Promise<SparseIndex | null> {
  const info = await stat(file).catch(() => null);
  if (!info) return null;
  let hit = loaded.get(file);
  if (!hit || hit.mtimeMs !== info.mtimeMs || hit.size !== info.size) {
    loaded.delete(file);
    const parsed = parse(await readFile(file));
    if (!parsed) return null;
    hit = { mtimeMs: info.mtimeMs, size: info.size, ...parsed };
    for (const old of [...loaded.keys()].slice(0, Math.max(0, loaded.size - MAX_LOADED + 1))) loaded.delete(old);
    loaded.set(file, hit);
  }
  const o = hit.owner;
  return o.paramsHash === owner.paramsHash && o.table === owner.table && o.version === owner.version ? hit.index : null;
}

function parse(raw: Buffer): { index: SparseIndex; owner: SparseOwner } | null {
  // Typed-array views need 4-byte alignment; a Buffer from readFile normally has it.
  const buf = raw.byteOffset % 4 === 0 ? raw : Buffer.from(raw);
  if (buf.length < 8 || buf.toString("latin1", 0, 4) !== MAGIC) return null;
  const headerLength = buf.readUInt32LE(4);
  let h: Header;
  try {
    h = JSON.parse(buf.toString("utf8", 8, 8 + headerLength)) as Header;
  } catch {
    return null;
  }
  if (h.format !== FORMAT) return null;
  let at = buf.byteOffset + 8 + headerLength;
  const take = <T>(make: (b: ArrayBuffer, o: number, n: number) => T, n: number): T => {
    const v = make(buf.buffer as ArrayBuffer, at, n);
    at += n * 4;
    return v;
  };
  if (buf.length !== 8 + headerLength + 4 * (h.dims + 1 + 2 * h.nnz)) return null;
  const start = take((b, o, n) => new Uint32Array(b, o, n), h.dims + 1);
  const docs = take((b, o, n) => new Uint32Array(b, o, n), h.nnz);
  const weights = take((b, o, n) => new Float32Array(b, o, n), h.nnz);
  return {
    owner: { paramsHash: h.paramsHash, table: h.table, version: h.version },
    index: {
      rows: h.rows,
      dims: h.dims,
      start,
      docs,
      weights,
      scores: new Float32Array(h.rows),
    },
  };
}

/**
 * The `k` rows with the highest dot product with `q`, best first (ties: lower row first) — exactly
 * what a full scan ranks, untouched rows scoring 0.
 */
export function sparseTopK(index: SparseIndex, q: Float32Array, k: number): number[] {
  return sparseTopKScored(index, q, k).map((h) => h.row);
}

/** The best `k` rows (offsets) with their scores (the dot product with `q`), best first. */
export function sparseTopKScored(index: SparseIndex, q: Float32Array, k: number): { row: number; score: number }[] {
  const { start, docs, weights, scores, rows } = index;
  k = Math.min(k, rows);
  if (k <= 0) return [];
  scores.fill(0);
  for (let d = 0; d < q.length; d++) {
    const w = q[d]!;
    if (w === 0) continue;
    for (let p = start[d]!, end = start[d + 1]!; p < end; p++) scores[docs[p]!]! += w * weights[p]!;
  }
  // Partial selection in one pass: the best k so far, sorted (k is small, so insertion beats a heap).
  // Rows come in ascending order, so a later row enters only with a strictly higher score (ties keep
  // the lower row first).
  const best = new Int32Array(k);
  const bestScore = new Float32Array(k);
  let size = 0;
  let floor = -Infinity;
  for (let i = 0; i < rows; i++) {
    const s = scores[i]!;
    if (size === k && !(s > floor)) continue;
    let at = size < k ? size++ : k - 1;
    while (at > 0 && s > bestScore[at - 1]!) {
      best[at] = best[at - 1]!;
      bestScore[at] = bestScore[at - 1]!;
      at--;
    }
    best[at] = i;
    bestScore[at] = s;
    if (size === k) floor = bestScore[k - 1]!;
  }
  return Array.from(best.subarray(0, size), (row, i) => ({ row, score: bestScore[i]! }));
}
