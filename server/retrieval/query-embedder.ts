/**
 * The embedder a query against an existing index must use. Local and hash indexes rebuild theirs
 * from the stored state inside search() (cached); model-backed indexes need the configured endpoint or model
 * folder, checked against the index's record — a different model is refused with a clear message.
 */
import type { EmbedderSettingsInput } from "./embed/settings.ts";
import { embedderFromRecord } from "./embed/from-record.ts";
import type { Embedder } from "./embed/types.ts";
import type { ChunkIndex } from "./store/index.ts";

export async function queryEmbedderFor(
  index: ChunkIndex,
  settings: EmbedderSettingsInput,
): Promise<Embedder | undefined> {
  if (index.embedder.name === "hash" || index.embedder.name === "local") return undefined;
  return embedderFromRecord(index.embedder, index.embedderState, settings);
}
