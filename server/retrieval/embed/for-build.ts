/**
 * The build side of "changing the embedder re-indexes": given the configured embedder and the record
 * of the existing index, whether the index must be rebuilt from scratch, and the embedder (plus the
 * state to store) for that build. Kept here so an index builder needs no per-embedder knowledge.
 */
import { HASH_FEATURES_VERSION, HashEmbedder } from "./hash.ts";
import { LOCAL_VERSION, LocalEmbedder } from "./local.ts";
import type { Embedder, EmbedderRecord } from "./types.ts";

/**
 * True when the existing index cannot be updated in place with `configured`: another embedder family
 * or dimension, another model/endpoint/weights, or hash features of another version. A hash index's
 * fitted IDF is its own (an unfitted configured hash embedder never matches it), so for hash only
 * dims and feature version count; incremental updates then reuse the index's stored IDF. The same
 * holds for the local embedder (its version; its fitted state is the index's).
 */
export function embedderChanged(existing: EmbedderRecord, configured: Embedder): boolean {
  if (existing.name !== configured.name || existing.dims !== configured.dims) return true;
  if (configured.name === "hash") return existing.params.version !== HASH_FEATURES_VERSION;
  if (configured.name === "local") return existing.params.version !== LOCAL_VERSION;
  return existing.paramsHash !== configured.record().paramsHash;
}

/** Embedders whose vector space is fitted on each index's own texts (and stored with it). */
export const fittedEmbedder = (e: { name: string }) => e.name === "hash" || e.name === "local";

/**
 * The embedder for a full build over `texts` (a local or hash embedder is fitted on them) and its
 * state. `proseShare`: the share of the texts that is prose rather than code (the local embedder's
 * profile); default all prose.
 */
export function embedderForFullBuild(
  configured: Embedder,
  texts: string[],
  proseShare = 1,
): { embedder: Embedder; state: unknown } {
  if (configured instanceof LocalEmbedder) {
    const fitted = configured.fit(texts, proseShare);
    return { embedder: fitted, state: fitted.state() };
  }
  if (configured instanceof HashEmbedder) {
    const fitted = configured.fit(texts);
    return { embedder: fitted, state: fitted.idfState() };
  }
  return { embedder: configured, state: null };
}
