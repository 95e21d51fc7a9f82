/**
 * The query-side embedder for an index. A hash index can be queried without the caller knowing how
 * it was built: its record and fitted IDF are stored with it, and they fully determine the embedder.
 * Model-backed embedders (openai, transformers) need what the record deliberately leaves out — the
 * API key, the endpoint URL, the model folder on this machine — from the settings
 * (`embedderFromRecord`), or a caller-supplied instance (`embedderForIndex`); either way the result
 * is checked against the record.
 */
import { HashEmbedder, hashIdfStateSchema } from "./hash.ts";
import { LocalEmbedder } from "./local.ts";
import {
  embedderSettingsSchema,
  openaiFromSettings,
  transformersFromSettings,
  type EmbedderSettingsInput,
} from "./settings.ts";
import { TRANSFORMERS_DTYPES } from "./transformers.ts";
import { assertSameEmbedder, type Embedder, type EmbedderRecord } from "./types.ts";

export function embedderForIndex(record: EmbedderRecord, state: unknown, supplied?: Embedder): Embedder {
  if (supplied) {
    assertSameEmbedder(record, supplied.record());
    return supplied;
  }
  if (record.name === "local") {
    const local = new LocalEmbedder(state);
    assertSameEmbedder(record, local.record());
    return local;
  }
  if (record.name !== "hash")
    throw new Error(
      `This index was built with the "${record.name}" embedder; pass an instance of it to query the index's vectors.`,
    );
  const embedder = new HashEmbedder({ dims: record.dims, ...(state ? { idf: hashIdfStateSchema.parse(state) } : {}) });
  // The stored state must reproduce the recorded vector space exactly (a corrupt or foreign state would not).
  assertSameEmbedder(record, embedder.record());
  return embedder;
}

/**
 * Rebuilds the index's embedder whatever is configured now: hash from its stored state; openai with
 * the recorded model and dims at the configured endpoint and key; transformers from the configured
 * model folder, or the recorded one when none is configured. Throws EmbedderMismatchError when the
 * result is not the index's vector space (another endpoint host, other weights in the folder).
 */
export async function embedderFromRecord(
  record: EmbedderRecord,
  state: unknown,
  settings: EmbedderSettingsInput,
): Promise<Embedder> {
  const s = embedderSettingsSchema.parse(settings);
  let embedder: Embedder;
  switch (record.name) {
    case "hash":
    case "local":
      return embedderForIndex(record, state);
    case "openai": {
      const model = typeof record.params.model === "string" ? record.params.model : undefined;
      embedder = await openaiFromSettings(s, {
        model,
        dims: record.dims,
        requestDimensions: record.params.requestDimensions === true,
      });
      break;
    }
    case "transformers": {
      // The configured folder wins only when it is configured for transformers: with another
      // embedder configured, TRANSFORMERS_MODEL_PATH may be stale and the recorded folder is the guess.
      const recorded = typeof record.params.path === "string" ? record.params.path : undefined;
      const configured = s.embedder === "transformers" ? s.transformers.modelPath : undefined;
      const num = (v: unknown) => (typeof v === "number" ? v : undefined);
      const dtype = TRANSFORMERS_DTYPES.find((d) => d === record.params.dtype);
      embedder = await transformersFromSettings(s, configured ?? recorded ?? s.transformers.modelPath, {
        ...(dtype ? { dtype } : {}),
        maxTokens: num(record.params.maxTokens),
        maxInputChars: num(record.params.maxInputChars),
      });
      break;
    }
    default:
      throw new Error(`This index was built with an unknown embedder "${record.name}"; re-index it.`);
  }
  assertSameEmbedder(record, embedder.record());
  return embedder;
}
