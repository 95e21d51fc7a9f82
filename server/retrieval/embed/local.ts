/**
 * The offline default embedder ("local"): no download, no service. A vector is two segments, each
 * L2-normalised and weighted, then the whole normalised again (so a dot product is a weighted sum of
 * the segments' cosines):
 *  - `lexical` (LEXICAL_DIMS): the text's terms (text/terms.ts: identifiers split, stop words out,
 *    Porter stems) hashed into buckets with a sign, weighted by sublinear TF × IDF — exact word
 *    overlap, like the old hash embedder but on stems and without its bigram features;
 *  - `latent` (LATENT_DIMS): latent semantic vectors (lsa.ts) fitted on the index's own chunks at
 *    build time — terms that share contexts in this corpus are near each other, so a chunk about
 *    `drag` answers a question about `resistance`.
 * Both are fitted on the index (document frequencies, the SVD), stored with it (`state`), and part of
 * its record's paramsHash: an index is always queried in its own space.
 *
 * Documents and queries are embedded alike, except that a query's segments get the weights of the
 * index's profile (`prose` when most chunks are prose, else `code`; QUERY_WEIGHTS): the latent
 * segment is worth more on prose than on code, where names carry most of the meaning. Chunks are
 * stored with equal segment weights, so the weights can change without re-indexing.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { fnv1a } from "./hash.ts";
import { termVectors, type SparseRow } from "./lsa.ts";
import type { Embedder, EmbedderRecord } from "./types.ts";
import { identifierTerms } from "../text/terms.ts";
import { IDENTIFIER } from "../split-identifiers.ts";

/** Bumped whenever features or fitting change: vectors of two versions are not comparable. */
export const LOCAL_VERSION = 1;
export const LEXICAL_DIMS = 512;
export const LATENT_DIMS = 128;
export const LOCAL_DIMS = LEXICAL_DIMS + LATENT_DIMS;
/** The SVD is fitted on at most this many chunks (evenly spaced through the corpus) and this many
 * terms (the most frequent seen in ≥ 2 chunks); every chunk is then folded in. */
export const LSA_SAMPLE = 12_000;
export const LSA_TERMS = 20_000;

export type Profile = "prose" | "code";

/** Query-side segment weights per profile (each segment's share of the score). Tuned on the
 * development halves of the bench's sets only (bench/measure/fusion.ts): vector-only nDCG@10 on
 * Cranfield 0.350 / 0.373 / 0.396 at latent shares 0.3 / 0.5 / 0.85; MRR@10 on the code sets
 * 0.494 / 0.469 / 0.403 (JavaScript), 0.324 / 0.322 / 0.293 (Python). */
export const QUERY_WEIGHTS: Record<Profile, { lexical: number; latent: number }> = {
  prose: { lexical: 0.15, latent: 0.85 },
  code: { lexical: 0.7, latent: 0.3 },
};

const b64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/);
export const localStateSchema = z.object({
  version: z.literal(LOCAL_VERSION),
  profile: z.enum(["prose", "code"]),
  docs: z.number().int().nonnegative(),
  /** Term hashes (fnv1a of the stem) seen in ≥ 2 chunks, most frequent first; `df` parallel. */
  terms: z.array(z.number().int().nonnegative()),
  df: z.array(z.number().int().positive()),
  /** Latent vectors of the first `count` terms: int8 rows of LATENT_DIMS with one float32 scale each. */
  latent: z.object({ count: z.number().int().nonnegative(), rows: b64, scales: b64 }),
});
export type LocalState = z.infer<typeof localStateSchema>;

interface Fitted {
  state: LocalState;
  index: Map<number, number>;
  idf: Float64Array;
  unknownIdf: number;
  latent: Float32Array;
}

/** Identifier → its terms' hashes, memoised: code repeats its names, and splitting, stemming and
 * hashing each occurrence was most of an index build (250k chunks: 130 s → see bench). */
const identifierHashes = new Map<string, readonly number[]>();
const MAX_MEMO = 500_000;

function hashesOf(identifier: string): readonly number[] {
  let h = identifierHashes.get(identifier);
  if (h === undefined) {
    h = identifierTerms(identifier).map(fnv1a);
    if (identifierHashes.size >= MAX_MEMO) identifierHashes.clear();
    identifierHashes.set(identifier, h);
  }
  return h;
}

/** Our own copy of the identifier pattern: `exec` moves its `lastIndex` (matchAll's iterator objects
 * per match cost more than the counting). */
const WORDS = new RegExp(IDENTIFIER.source, IDENTIFIER.flags);

/** Term hash → count in the text (text/terms.ts, hashed), in `m` (cleared first). */
function counts(text: string, m = new Map<number, number>()): Map<number, number> {
  m.clear();
  WORDS.lastIndex = 0;
  for (let match = WORDS.exec(text); match; match = WORDS.exec(text)) {
    const hs = hashesOf(match[0]);
    for (let i = 0; i < hs.length; i++) m.set(hs[i]!, (m.get(hs[i]!) ?? 0) + 1);
  }
  return m;
}

const idfOf = (docs: number, df: number) => Math.log((docs + 1) / (df + 1));

function prepare(state: LocalState): Fitted {
  if (state.terms.length !== state.df.length) throw new Error("local embedder: state is corrupt (terms and df differ)");
  const index = new Map(state.terms.map((h, i) => [h, i]));
  const idf = Float64Array.from(state.df, (n) => idfOf(state.docs, n));
  const rows = Buffer.from(state.latent.rows, "base64");
  const scales = Buffer.from(state.latent.scales, "base64");
  const { count } = state.latent;
  if (rows.length !== count * LATENT_DIMS || scales.length !== count * 4 || count > state.terms.length)
    throw new Error("local embedder: state is corrupt (latent vectors)");
  const latent = new Float32Array(count * LATENT_DIMS);
  const scale = new Float32Array(scales.buffer.slice(scales.byteOffset, scales.byteOffset + scales.length));
  const int8 = new Int8Array(rows.buffer, rows.byteOffset, rows.length);
  for (let i = 0; i < count; i++)
    for (let j = 0; j < LATENT_DIMS; j++) latent[i * LATENT_DIMS + j] = int8[i * LATENT_DIMS + j]! * scale[i]!;
  return { state, index, idf, unknownIdf: idfOf(state.docs, 1), latent };
}

/** Document frequencies, the profile and the latent term vectors of a corpus. */
export function fitLocal(texts: readonly string[], proseShare: number): LocalState {
  const df = new Map<number, number>();
  const bags: Map<number, number>[] = [];
  const step = Math.max(1, texts.length / LSA_SAMPLE);
  let nextSample = 0;
  // Only the sampled chunks' counts are kept; the others reuse one Map (no garbage per chunk).
  const scratch = new Map<number, number>();
  texts.forEach((text, i) => {
    const sampled = i >= nextSample;
    const c = counts(text, sampled ? new Map() : scratch);
    for (const h of c.keys()) df.set(h, (df.get(h) ?? 0) + 1);
    if (sampled) {
      bags.push(c);
      nextSample += step;
    }
  });
  const kept = [...df].filter(([, n]) => n >= 2).sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const docs = texts.length;
  const vocab = kept.slice(0, LSA_TERMS);
  const col = new Map(vocab.map(([h], i) => [h, i]));
  const rows: SparseRow[] = bags.map((bag) => {
    const idx: number[] = [];
    const val: number[] = [];
    let norm = 0;
    for (const [h, tf] of bag) {
      const c = col.get(h);
      if (c === undefined) continue;
      const w = (1 + Math.log(tf)) * idfOf(docs, vocab[c]![1]);
      idx.push(c);
      val.push(w);
      norm += w * w;
    }
    const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    return { idx: Int32Array.from(idx), val: Float32Array.from(val, (v) => v * inv) };
  });
  const W = termVectors(
    rows.filter((r) => r.idx.length),
    vocab.length,
    LATENT_DIMS,
  );
  const int8 = new Int8Array(vocab.length * LATENT_DIMS);
  const scales = new Float32Array(vocab.length);
  for (let t = 0; t < vocab.length; t++) {
    let max = 0;
    for (let j = 0; j < LATENT_DIMS; j++) max = Math.max(max, Math.abs(W[t * LATENT_DIMS + j]!));
    scales[t] = max / 127;
    if (max > 0)
      for (let j = 0; j < LATENT_DIMS; j++)
        int8[t * LATENT_DIMS + j] = Math.round((W[t * LATENT_DIMS + j]! / max) * 127);
  }
  return {
    version: LOCAL_VERSION,
    profile: proseShare >= 0.5 ? "prose" : "code",
    docs,
    terms: kept.map(([h]) => h),
    df: kept.map(([, n]) => n),
    latent: {
      count: vocab.length,
      rows: Buffer.from(int8.buffer).toString("base64"),
      scales: Buffer.from(scales.buffer).toString("base64"),
    },
  };
}

const embedScratch = new Map<number, number>();

export class LocalEmbedder implements Embedder {
  readonly name = "local";
  readonly dims = LOCAL_DIMS;
  private readonly fitted: Fitted | null;
  private readonly stateHash: string;

  /** Without a state (before the first fit) only the lexical segment is filled, with IDF 1. */
  constructor(state?: unknown) {
    this.fitted = state == null ? null : prepare(localStateSchema.parse(state));
    this.stateHash = createHash("sha256")
      .update(JSON.stringify(this.fitted?.state ?? null))
      .digest("hex");
  }

  /** A new embedder fitted on `texts`; `proseShare` is the share of them that is prose. */
  fit(texts: readonly string[], proseShare = 1): LocalEmbedder {
    return new LocalEmbedder(fitLocal(texts, proseShare));
  }

  get profile(): Profile {
    return this.fitted?.state.profile ?? "code";
  }

  state(): LocalState | null {
    return this.fitted?.state ?? null;
  }

  record(): EmbedderRecord {
    const params = { version: LOCAL_VERSION, docs: this.fitted?.state.docs ?? 0, profile: this.profile };
    const paramsHash = createHash("sha256")
      .update(`local\0${this.dims}\0${LOCAL_VERSION}\0${this.stateHash}`)
      .digest("hex");
    return { name: this.name, dims: this.dims, params, paramsHash };
  }

  /** A document's vector (segments of equal length), or a query's with `weights`. The fitted arrays
   * are read into locals once: inside a loop that writes a typed array V8 reloads every property
   * (it cannot prove the store does not alias it), which made this 3× slower at index build. */
  embedOne(text: string, weights = { lexical: 1, latent: 1 }): Float32Array {
    const v = new Float32Array(LOCAL_DIMS);
    const f = this.fitted;
    const index = f?.index;
    const idf = f?.idf;
    const unknownIdf = f?.unknownIdf ?? 1;
    const latent = f?.latent;
    const latentCount = f?.state.latent.count ?? 0;
    // One Map for every text: embedding is synchronous, nothing else holds it meanwhile.
    for (const [h, tf] of counts(text, embedScratch)) {
      const i = index?.get(h);
      const w = (1 + Math.log(tf)) * (idf ? (i === undefined ? unknownIdf : idf[i]!) : 1);
      v[h & (LEXICAL_DIMS - 1)]! += h & 0x80000000 ? -w : w;
      if (latent && i !== undefined && i < latentCount) {
        const o = i * LATENT_DIMS;
        for (let j = 0; j < LATENT_DIMS; j++) v[LEXICAL_DIMS + j]! += w * latent[o + j]!;
      }
    }
    let latentNorm = 0;
    let lexicalNorm = 0;
    for (let j = 0; j < LEXICAL_DIMS; j++) lexicalNorm += v[j]! * v[j]!;
    for (let j = LEXICAL_DIMS; j < LOCAL_DIMS; j++) latentNorm += v[j]! * v[j]!;
    // Each segment to length `weight`, then the whole to unit length. A document's segments are
    // equal, so a query's dot product with it is Σ weight × the segment's cosine, up to one positive
    // factor per query (which no ranking sees).
    const a = lexicalNorm > 0 ? weights.lexical / Math.sqrt(lexicalNorm) : 0;
    const b = latentNorm > 0 ? weights.latent / Math.sqrt(latentNorm) : 0;
    const norm = a * a * lexicalNorm + b * b * latentNorm;
    // A text without terms stays the zero vector: similar to nothing.
    if (norm > 0) {
      const inv = 1 / Math.sqrt(norm);
      const sa = a * inv;
      const sb = b * inv;
      for (let j = 0; j < LEXICAL_DIMS; j++) v[j]! *= sa;
      for (let j = LEXICAL_DIMS; j < LOCAL_DIMS; j++) v[j]! *= sb;
    }
    return v;
  }

  async embed(batch: string[]): Promise<Float32Array[]> {
    return batch.map((t) => this.embedOne(t));
  }

  /** The distinct terms of a text (hashes) with their IDF in this index; `known` when the index has
   * the term in two chunks or more (a term seen once or never gets the rarest IDF). relevance.ts
   * weighs how much of a query a hit covers by these. */
  termWeights(text: string): { hash: number; idf: number; known: boolean }[] {
    const f = this.fitted;
    return [...counts(text).keys()].map((hash) => {
      const i = f?.index.get(hash);
      return { hash, idf: f ? (i === undefined ? f.unknownIdf : f.idf[i]!) : 1, known: i !== undefined };
    });
  }

  /** The distinct terms of a text, as hashes. */
  termSet(text: string): Set<number> {
    return new Set(counts(text).keys());
  }

  /** Queries: the profile's segment weights. */
  async embedQueries(batch: string[]): Promise<Float32Array[]> {
    const w = QUERY_WEIGHTS[this.profile];
    return batch.map((t) => this.embedOne(t, w));
  }
}
