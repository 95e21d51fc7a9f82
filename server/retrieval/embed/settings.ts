/**
 * The bridge from configuration to an embedder, in the same shape as server/llm/settings.ts:
 * server/config.ts spreads `embedderEnvShape` into its schema and stores
 * `embedderSettingsFromEnv(env, dataDir)`; the app then calls `createEmbedderFromSettings(settings)`.
 * The settings are a plain object (validated again here), so tests and the CLI can build one by hand.
 */
import path from "node:path";
import { z } from "zod";
import { DEFAULT_HASH_DIMS, HashEmbedder } from "./hash.ts";
import { LocalEmbedder } from "./local.ts";
import { OpenAIEmbedder } from "./openai.ts";
import { TRANSFORMERS_DTYPES, TransformersEmbedder, type TransformersEmbedderOptions } from "./transformers.ts";
import type { Embedder } from "./types.ts";

export const EMBEDDERS = ["local", "hash", "openai", "transformers"] as const;
export type EmbedderName = (typeof EMBEDDERS)[number];

const url = z.url({ protocol: /^https?$/, error: "an http(s) URL such as http://localhost:11434/v1" });
const positiveInt = z.coerce.number({ error: "a whole number" }).int("a whole number").positive("a positive number");
const bool = z.enum(["true", "false"], { error: "true or false" });

export const embedderEnvShape = {
  /** local = offline, fitted on each index (default); hash = the older offline feature hashing; openai = an OpenAI-compatible /embeddings endpoint; transformers = a local ONNX model folder. */
  EMBEDDER: z.enum(EMBEDDERS).default("local"),
  /** hash: vector size (power of two ≥ 512, default 1024). openai: the expected size (default: asked from the endpoint). local: fixed, not settable. */
  EMBEDDINGS_DIMS: positiveInt.optional(),
  /** openai: the endpoint (default https://api.openai.com/v1; Ollama http://localhost:11434/v1). */
  EMBEDDINGS_BASE_URL: url.optional(),
  /** openai: the API key (not needed by most local servers). Never stored with an index. */
  EMBEDDINGS_API_KEY: z.string().min(1).optional(),
  /** openai: the model, e.g. text-embedding-3-small, nomic-embed-text (required for openai). */
  EMBEDDINGS_MODEL: z.string().min(1).optional(),
  /** openai: send `dimensions` with each request (models that shorten vectors); needs EMBEDDINGS_DIMS. */
  EMBEDDINGS_REQUEST_DIMENSIONS: bool.default("false"),
  /** Texts per request (openai, default 64; TEI allows 32) or per forward pass (transformers, default 16). */
  EMBEDDINGS_BATCH_SIZE: positiveInt.optional(),
  /** Characters per text; longer texts are cut (openai default 24000; transformers default 32 × its token limit). */
  EMBEDDINGS_MAX_INPUT_CHARS: positiveInt.optional(),
  EMBEDDINGS_TIMEOUT_MS: positiveInt.default(60_000),
  /** openai: retries on 429 / 5xx / network errors, with exponential backoff. */
  EMBEDDINGS_MAX_RETRIES: z.coerce
    .number({ error: "a whole number" })
    .int("a whole number")
    .min(0, "between 0 and 10")
    .max(10, "between 0 and 10")
    .default(4),
  /** transformers: the model folder (config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx). */
  TRANSFORMERS_MODEL_PATH: z.string().min(1).optional(),
  /** transformers: allow downloading TRANSFORMERS_MODEL_PATH as a Hugging Face model id into TRANSFORMERS_CACHE_DIR. */
  TRANSFORMERS_ALLOW_REMOTE: bool.default("false"),
  /** transformers: where downloads go (default DATA_DIR/models). */
  TRANSFORMERS_CACHE_DIR: z.string().min(1).optional(),
  /** transformers: which weights to load: fp32 = onnx/model.onnx, q8 = onnx/model_quantized.onnx, … */
  TRANSFORMERS_DTYPE: z.enum(TRANSFORMERS_DTYPES).default("fp32"),
};

export type EmbedderEnv = z.infer<z.ZodObject<typeof embedderEnvShape>>;

export const embedderSettingsSchema = z.object({
  embedder: z.enum(EMBEDDERS).default("local"),
  hash: z.object({ dims: z.number().int().positive().optional() }).default({}),
  openai: z
    .object({
      baseURL: z.string().optional(),
      apiKey: z.string().optional(),
      model: z.string().optional(),
      dims: z.number().int().positive().optional(),
      requestDimensions: z.boolean().default(false),
      maxBatchSize: z.number().int().positive().optional(),
      maxInputChars: z.number().int().positive().optional(),
      timeoutMs: z.number().int().positive().default(60_000),
      maxRetries: z.number().int().min(0).max(10).default(4),
      /** Tests shrink the backoff. */
      retryBaseDelayMs: z.number().int().nonnegative().optional(),
    })
    .default({ requestDimensions: false, timeoutMs: 60_000, maxRetries: 4 }),
  transformers: z
    .object({
      modelPath: z.string().optional(),
      allowRemote: z.boolean().default(false),
      cacheDir: z.string().optional(),
      dtype: z.enum(TRANSFORMERS_DTYPES).default("fp32"),
      batchSize: z.number().int().positive().optional(),
      maxInputChars: z.number().int().positive().optional(),
    })
    .default({ allowRemote: false, dtype: "fp32" }),
});
export type EmbedderSettings = z.infer<typeof embedderSettingsSchema>;
export type EmbedderSettingsInput = z.input<typeof embedderSettingsSchema>;

export function embedderSettingsFromEnv(env: EmbedderEnv, dataDir?: string): EmbedderSettings {
  return {
    embedder: env.EMBEDDER,
    hash: { dims: env.EMBEDDINGS_DIMS },
    openai: {
      baseURL: env.EMBEDDINGS_BASE_URL,
      apiKey: env.EMBEDDINGS_API_KEY,
      model: env.EMBEDDINGS_MODEL,
      dims: env.EMBEDDINGS_DIMS,
      requestDimensions: env.EMBEDDINGS_REQUEST_DIMENSIONS === "true",
      maxBatchSize: env.EMBEDDINGS_BATCH_SIZE,
      maxInputChars: env.EMBEDDINGS_MAX_INPUT_CHARS,
      timeoutMs: env.EMBEDDINGS_TIMEOUT_MS,
      maxRetries: env.EMBEDDINGS_MAX_RETRIES,
    },
    transformers: {
      modelPath: env.TRANSFORMERS_MODEL_PATH,
      allowRemote: env.TRANSFORMERS_ALLOW_REMOTE === "true",
      cacheDir: env.TRANSFORMERS_CACHE_DIR ?? (dataDir ? path.join(dataDir, "models") : undefined),
      dtype: env.TRANSFORMERS_DTYPE,
      batchSize: env.EMBEDDINGS_BATCH_SIZE,
      maxInputChars: env.EMBEDDINGS_MAX_INPUT_CHARS,
    },
  };
}

/**
 * The configured embedder. A local or hash embedder comes back unfitted (an index build fits it on
 * its own chunks); an openai one has asked its endpoint for the dimension unless EMBEDDINGS_DIMS is set; a
 * transformers model is loaded once per process and shared.
 */
export async function createEmbedderFromSettings(input: EmbedderSettingsInput): Promise<Embedder> {
  const s = embedderSettingsSchema.parse(input);
  switch (s.embedder) {
    case "local":
      return new LocalEmbedder();
    case "hash":
      return new HashEmbedder({ dims: s.hash.dims ?? DEFAULT_HASH_DIMS });
    case "openai":
      return openaiFromSettings(s, {});
    case "transformers":
      return transformersFromSettings(s, s.transformers.modelPath);
  }
}

/** An OpenAI embedder for these settings; `fixed` (model, dims) overrides them, e.g. from an index's record. */
export function openaiFromSettings(
  s: EmbedderSettings,
  fixed: { model?: string; dims?: number; requestDimensions?: boolean },
): Promise<OpenAIEmbedder> {
  const o = s.openai;
  const model = fixed.model ?? o.model;
  if (!model)
    throw new Error(
      "EMBEDDER=openai needs EMBEDDINGS_MODEL (e.g. text-embedding-3-small, or nomic-embed-text on Ollama)",
    );
  return OpenAIEmbedder.create({
    baseURL: o.baseURL,
    apiKey: o.apiKey,
    model,
    dims: fixed.dims ?? o.dims,
    requestDimensions: fixed.requestDimensions ?? o.requestDimensions,
    maxBatchSize: o.maxBatchSize,
    maxInputChars: o.maxInputChars,
    timeoutMs: o.timeoutMs,
    retry: {
      maxRetries: o.maxRetries,
      ...(o.retryBaseDelayMs !== undefined
        ? { baseDelayMs: o.retryBaseDelayMs, maxDelayMs: Math.max(o.retryBaseDelayMs * 8, 1) }
        : {}),
    },
  });
}

// Loading a model takes seconds and its memory is large: one instance per folder and options.
const loaded = new Map<string, Promise<TransformersEmbedder>>();

/** A transformers embedder for these settings; `fixed` (weights, limits) overrides them, e.g. from an index's record. */
export function transformersFromSettings(
  s: EmbedderSettings,
  modelPath: string | undefined,
  fixed: Pick<TransformersEmbedderOptions, "dtype" | "maxTokens" | "maxInputChars"> = {},
): Promise<TransformersEmbedder> {
  const t = s.transformers;
  if (!modelPath)
    throw new Error(
      "EMBEDDER=transformers needs TRANSFORMERS_MODEL_PATH: a folder with config.json, tokenizer.json, tokenizer_config.json and onnx/model.onnx",
    );
  const options: TransformersEmbedderOptions = {
    model: modelPath,
    allowRemote: t.allowRemote,
    dtype: fixed.dtype ?? t.dtype,
    ...(t.cacheDir ? { cacheDir: t.cacheDir } : {}),
    ...(t.batchSize ? { batchSize: t.batchSize } : {}),
    ...(fixed.maxTokens ? { maxTokens: fixed.maxTokens } : {}),
    ...((fixed.maxInputChars ?? t.maxInputChars) ? { maxInputChars: fixed.maxInputChars ?? t.maxInputChars } : {}),
  };
  const key = JSON.stringify({ ...options, model: path.resolve(modelPath) });
  let pending = loaded.get(key);
  if (!pending) {
    pending = TransformersEmbedder.load(options);
    loaded.set(key, pending);
    // A failed load is not cached: the folder may be fixed and the next call should see it.
    pending.catch(() => loaded.delete(key));
  }
  return pending;
}
