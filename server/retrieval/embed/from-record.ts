/**
 * The query-side embedder for an index. A hash index can be queried without the caller knowing how
 * it was built: its record and fitted IDF are stored with it, and they fully determine the embedder.
 * Model-backed embedders (openai, transformers) need a caller-supplied instance, which is checked.
 */
import { HashEmbedder, hashIdfStateSchema } from "./hash.ts";
import { assertSameEmbedder, type Embedder, type EmbedderRecord } from "./types.ts";

export function embedderForIndex(record: EmbedderRecord, state: unknown, supplied?: Embedder): Embedder {
  if (supplied) {
    assertSameEmbedder(record, supplied.record());
    return supplied;
  }
  if (record.name !== "hash") throw new Error(`This index was built with the "${record.name}" embedder; pass an instance of it to query the index's vectors.`);
  const embedder = new HashEmbedder({ dims: record.dims, ...(state ? { idf: hashIdfStateSchema.parse(state) } : {}) });
  // The stored state must reproduce the recorded vector space exactly (a corrupt or foreign state would not).
  assertSameEmbedder(record, embedder.record());
  return embedder;
}
