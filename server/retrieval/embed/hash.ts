/**
 * The offline default embedder: code-aware feature hashing. No model weights exist offline (STACK.md
 * "Embeddings"), and for code search most of the signal is shared identifiers anyway. Features per
 * text: every identifier's lower-cased sub-tokens (`parseConfigFile` → parse, config, file), the whole
 * compound identifier, and bigrams of adjacent sub-tokens across the text (so the query "parse config"
 * meets `parseConfig`). Weights are sublinear TF × IDF, with IDF fitted on the index's own chunks
 * (fit → serialisable state stored with the index). Each feature lands in one of `dims` buckets with a
 * hash-derived sign (collisions cancel out on average instead of piling up), and the vector is
 * L2-normalised so a dot product is the cosine. Character n-grams were measured worse and are absent.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { IDENTIFIER, splitIdentifier } from "../split-identifiers.ts";
import type { Embedder, EmbedderRecord } from "./types.ts";

/** Bumped whenever feature extraction changes: vectors of two versions are not comparable. */
export const HASH_FEATURES_VERSION = 1;
export const DEFAULT_HASH_DIMS = 1024;
export const MIN_HASH_DIMS = 512;

export const hashIdfStateSchema = z.object({
  version: z.literal(HASH_FEATURES_VERSION),
  /** Number of documents the IDF was fitted on. */
  docs: z.number().int().nonnegative(),
  /** Feature hash → document frequency, for features seen in ≥ 2 documents; parallel arrays. A
   * feature missing here has df ≤ 1 and gets the maximum IDF (storing the long tail of one-off
   * identifiers would multiply the state's size for no change in ranking). */
  features: z.array(z.number().int().nonnegative()),
  df: z.array(z.number().int().positive()),
});
export type HashIdfState = z.infer<typeof hashIdfStateSchema>;

export interface HashEmbedderOptions {
  dims?: number;
  /** Fitted IDF; without it every feature weighs the same (IDF 1), e.g. before the first fit. */
  idf?: HashIdfState;
}

/** 32-bit FNV-1a over UTF-16 code units: fast, stable across runs and platforms. */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // Final avalanche (murmur3 fmix32): FNV's low bits, which pick the bucket, mix poorly otherwise.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * Hashed features of one text with their counts. Namespaces (`s:`, `w:`, `b:`) keep a sub-token from
 * colliding by construction with an identical whole identifier or bigram.
 */
export function hashedFeatures(text: string): Map<number, number> {
  const counts = new Map<number, number>();
  const add = (f: string) => {
    const h = fnv1a(f);
    counts.set(h, (counts.get(h) ?? 0) + 1);
  };
  let prev: string | null = null;
  for (const match of text.matchAll(IDENTIFIER)) {
    const parts = splitIdentifier(match[0]);
    const lower: string[] = [];
    for (const p of parts) {
      const t = p.toLowerCase();
      // One-letter parts (i, x, the `s` of `URLs`) are noise as terms, but still break bigrams.
      if (t.length < 2 && !/\p{N}|\p{Lo}/u.test(t)) {
        prev = null;
        continue;
      }
      lower.push(t);
      add(`s:${t}`);
      if (prev !== null) add(`b:${prev} ${t}`);
      prev = t;
    }
    if (lower.length > 1) add(`w:${lower.join("_")}`);
  }
  return counts;
}

/** Fit document frequencies on the index's texts (chunks). */
export function fitHashIdf(corpus: Iterable<string>): HashIdfState {
  const df = new Map<number, number>();
  let docs = 0;
  for (const text of corpus) {
    docs++;
    for (const h of hashedFeatures(text).keys()) df.set(h, (df.get(h) ?? 0) + 1);
  }
  const kept = [...df].filter(([, n]) => n >= 2).sort((a, b) => a[0] - b[0]);
  return { version: HASH_FEATURES_VERSION, docs, features: kept.map(([h]) => h), df: kept.map(([, n]) => n) };
}

export class HashEmbedder implements Embedder {
  readonly name = "hash";
  readonly dims: number;
  private readonly idf: Map<number, number> | null;
  private readonly maxIdf: number;
  private readonly state: HashIdfState | null;
  private readonly stateHash: string;

  constructor(options: HashEmbedderOptions = {}) {
    const dims = options.dims ?? DEFAULT_HASH_DIMS;
    // Power of two: the bucket is the hash's low bits, which keeps every bucket equally likely.
    if (!Number.isInteger(dims) || dims < MIN_HASH_DIMS || (dims & (dims - 1)) !== 0)
      throw new Error(`hash embedder: dims must be a power of two ≥ ${MIN_HASH_DIMS} (got ${dims})`);
    this.dims = dims;
    this.state = options.idf ? hashIdfStateSchema.parse(options.idf) : null;
    if (this.state) {
      const { docs, features, df } = this.state;
      if (features.length !== df.length)
        throw new Error("hash embedder: IDF state is corrupt (features and df differ in length)");
      // Smoothed IDF (never 0, so a term in every chunk still counts a little).
      const idf = (n: number) => Math.log((docs + 1) / (n + 1)) + 1;
      this.idf = new Map(features.map((h, i) => [h, idf(df[i]!)]));
      this.maxIdf = idf(1);
    } else {
      this.idf = null;
      this.maxIdf = 1;
    }
    this.stateHash = createHash("sha256")
      .update(JSON.stringify(this.state ?? null))
      .digest("hex");
  }

  /** A new embedder with IDF fitted on `corpus` (same dims). */
  fit(corpus: Iterable<string>): HashEmbedder {
    return new HashEmbedder({ dims: this.dims, idf: fitHashIdf(corpus) });
  }

  /** The fitted state to store with the index (null before fit). */
  idfState(): HashIdfState | null {
    return this.state;
  }

  record(): EmbedderRecord {
    const params = { version: HASH_FEATURES_VERSION, idfDocs: this.state?.docs ?? 0 };
    const paramsHash = createHash("sha256")
      .update(`hash\0${this.dims}\0${HASH_FEATURES_VERSION}\0${this.stateHash}`)
      .digest("hex");
    return { name: this.name, dims: this.dims, params, paramsHash };
  }

  embedOne(text: string): Float32Array {
    const v = new Float32Array(this.dims);
    const mask = this.dims - 1;
    for (const [h, tf] of hashedFeatures(text)) {
      const w = (1 + Math.log(tf)) * (this.idf ? (this.idf.get(h) ?? this.maxIdf) : 1);
      // The top bit is independent of the low bits that pick the bucket.
      v[h & mask]! += h & 0x80000000 ? -w : w;
    }
    let norm = 0;
    for (let i = 0; i < v.length; i++) norm += v[i]! * v[i]!;
    // A text without features (empty, punctuation only) stays the zero vector: similar to nothing.
    if (norm > 0) {
      const inv = 1 / Math.sqrt(norm);
      for (let i = 0; i < v.length; i++) v[i]! *= inv;
    }
    return v;
  }

  async embed(batch: string[]): Promise<Float32Array[]> {
    return batch.map((t) => this.embedOne(t));
  }
}

/** Dot product; equals the cosine for the L2-normalised vectors embedders return. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}
