/**
 * The build side of "changing the embedder re-indexes": given the configured embedder and the record
 * of the existing index, whether the index must be rebuilt from scratch, and the embedder (plus the
 * state to store) for that build. Kept here so an index builder needs no per-embedder knowledge.
 */
import { HASH_FEATURES_VERSION, HashEmbedder } from "./hash.ts";
import type { Embedder, EmbedderRecord } from "./types.ts";

/**
 * True when the existing index cannot be updated in place with `configured`: another embedder family
 * or dimension, another model/endpoint/weights, or hash features of another version. A hash index's
 * fitted IDF is its own (an unfitted configured hash embedder never matches it), so for hash only
 * dims and feature version count; incremental updates then reuse the index's stored IDF.
 */
export function embedderChanged(existing: EmbedderRecord, configured: Embedder): boolean {
  if (existing.name !== configured.name || existing.dims !== configured.dims) return true;
  if (configured.name === "hash") return existing.params.version !== HASH_FEATURES_VERSION;
  return existing.paramsHash !== configured.record().paramsHash;
}

/** The embedder for a full build over `texts` (the hash embedder is fitted on them) and its state. */
export function embedderForFullBuild(configured: Embedder, texts: string[]): { embedder: Embedder; state: unknown } {
  if (configured instanceof HashEmbedder) {
    const fitted = configured.fit(texts);
    return { embedder: fitted, state: fitted.idfState() };
  }
  return { embedder: configured, state: null };
}
