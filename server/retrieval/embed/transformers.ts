/**
 * A local transformer model (ONNX, run by @huggingface/transformers on ONNX Runtime) as an embedder:
 * tokenize → last_hidden_state → mean over the real (unpadded) tokens → L2-normalise.
 *
 * The model comes from a folder in the transformers.js layout (config.json, tokenizer.json,
 * tokenizer_config.json, onnx/model.onnx) — e.g. an exported Hugging Face repo copied to the server.
 * Downloads are off unless explicitly allowed: transformers.js would otherwise try the Hub for any
 * file it does not find, which on a machine without internet is a slow failure and on one with
 * internet an unreviewed download. With remote off, its fetch is replaced by one that refuses, so
 * nothing can reach the network.
 *
 * The record identifies the model by a hash of its files' contents, not by its path: moving the
 * folder keeps the index usable, replacing the weights under the same name is refused.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import type { Embedder, EmbedderRecord } from "./types.ts";

/** transformers.js file-name suffix per weight type (its dtypes.js). */
const DTYPE_SUFFIX = { fp32: "", fp16: "_fp16", q8: "_quantized", int8: "_int8", uint8: "_uint8", q4: "_q4" } as const;
export type TransformersDtype = keyof typeof DTYPE_SUFFIX;
export const TRANSFORMERS_DTYPES = Object.keys(DTYPE_SUFFIX) as TransformersDtype[];

export interface TransformersEmbedderOptions {
  /** A model folder (absolute or relative to the working directory). With `allowRemote`, also a
   * Hugging Face model id ("org/name"), downloaded once into `cacheDir/org/name`. */
  model: string;
  /** Allow downloading from the Hugging Face Hub. Default false. */
  allowRemote?: boolean;
  /** Where downloads go (required with allowRemote when `model` is a model id). */
  cacheDir?: string;
  /** Which weights file to load: fp32 = onnx/model.onnx, q8 = onnx/model_quantized.onnx, … */
  dtype?: TransformersDtype;
  /** Tokens per text; longer texts are truncated. Default: the tokenizer's model_max_length, at most 512. */
  maxTokens?: number;
  /** Characters per text fed to the tokenizer (bounds tokenizing work on huge inputs). Default 32 × maxTokens. */
  maxInputChars?: number;
  /** Texts per forward pass. Default 16. */
  batchSize?: number;
}

export class TransformersModelError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "TransformersModelError";
  }
}

export function requiredModelFiles(dtype: TransformersDtype = "fp32"): string[] {
  return ["config.json", "tokenizer.json", "tokenizer_config.json", `onnx/model${DTYPE_SUFFIX[dtype]}.onnx`];
}

// transformers.js keeps its settings in one process-wide `env`: loads are serialised so that two
// embedders with different folders or remote settings cannot interleave their settings.
let loading: Promise<unknown> = Promise.resolve();
function serialised<T>(job: () => Promise<T>): Promise<T> {
  const run = loading.then(job, job);
  loading = run.catch(() => undefined);
  return run;
}

type Transformers = typeof import("@huggingface/transformers");
type Tokenizer = Awaited<ReturnType<Transformers["AutoTokenizer"]["from_pretrained"]>>;
type Model = Awaited<ReturnType<Transformers["AutoModel"]["from_pretrained"]>>;
interface TensorLike {
  dims: number[];
  data: ArrayLike<number | bigint>;
}

const refuseNetwork = async (url: unknown): Promise<never> => {
  throw new TransformersModelError(
    `network access is disabled for the transformers embedder (tried ${String(url)}); set TRANSFORMERS_ALLOW_REMOTE=true to allow downloads`,
  );
};

export class TransformersEmbedder implements Embedder {
  readonly name = "transformers";
  readonly dims: number;
  /** Inputs cut to maxInputChars so far (the tokenizer's own truncation to maxTokens is not counted). */
  truncatedInputs = 0;

  private constructor(
    private readonly tokenizer: Tokenizer,
    private readonly model: Model,
    dims: number,
    private readonly folder: string,
    private readonly modelName: string,
    private readonly dtype: TransformersDtype,
    private readonly maxTokens: number,
    private readonly maxInputChars: number,
    private readonly batchSize: number,
    private readonly contentHash: string,
  ) {
    this.dims = dims;
  }

  /** Loads the model (checking the folder first) and runs it once to learn its dimension. */
  static async load(options: TransformersEmbedderOptions): Promise<TransformersEmbedder> {
    const dtype = options.dtype ?? "fp32";
    if (!(dtype in DTYPE_SUFFIX))
      throw new TransformersModelError(
        `transformers embedder: unknown dtype "${dtype}" (use one of ${TRANSFORMERS_DTYPES.join(", ")})`,
      );
    const batchSize = options.batchSize ?? 16;
    if (!Number.isInteger(batchSize) || batchSize < 1)
      throw new TransformersModelError(
        `transformers embedder: batch size must be a positive whole number (got ${batchSize})`,
      );
    const { folder, id, remote, cacheDir } = await resolveModel(options);
    const files = requiredModelFiles(dtype);
    if (!remote) await assertComplete(folder, files);

    const transformers = await import("@huggingface/transformers");
    const { tokenizer, model } = await serialised(async () => {
      const { env } = transformers;
      env.allowLocalModels = true;
      env.allowRemoteModels = remote;
      env.localModelPath = cacheDir ?? path.dirname(folder);
      // The file cache is only for downloads; off, nothing is ever written next to the library.
      env.useFSCache = remote;
      if (cacheDir) env.cacheDir = cacheDir;
      env.fetch = remote ? globalThis.fetch.bind(globalThis) : refuseNetwork;
      try {
        const tokenizer = await transformers.AutoTokenizer.from_pretrained(id, { local_files_only: !remote });
        const model = await transformers.AutoModel.from_pretrained(id, {
          local_files_only: !remote,
          dtype,
          device: "cpu",
        });
        return { tokenizer, model };
      } catch (error) {
        throw new TransformersModelError(
          `transformers embedder: could not load the model in ${folder}: ${(error as Error).message ?? String(error)}`,
          { cause: error },
        );
      }
    });
    if (remote) await assertComplete(folder, files);

    const configured = tokenizer.model_max_length;
    const maxTokens =
      options.maxTokens ?? (Number.isFinite(configured) && configured > 0 ? Math.min(configured, 512) : 512);
    if (!Number.isInteger(maxTokens) || maxTokens < 2)
      throw new TransformersModelError(
        `transformers embedder: max tokens must be a whole number ≥ 2 (got ${maxTokens})`,
      );
    const maxInputChars = options.maxInputChars ?? maxTokens * 32;
    const contentHash = await hashFiles(folder, files);
    const name = remote ? id : path.basename(folder);
    const withDims = (dims: number) =>
      new TransformersEmbedder(
        tokenizer,
        model,
        dims,
        folder,
        name,
        dtype,
        maxTokens,
        maxInputChars,
        batchSize,
        contentHash,
      );
    // Dimension from a real forward pass: configs name it differently (hidden_size, d_model, dim…).
    const [vector] = await withDims(0).forward(["dimension probe"], true);
    return withDims(vector!.length);
  }

  record(): EmbedderRecord {
    const paramsHash = createHash("sha256")
      .update(
        `transformers\0${this.dims}\0${this.dtype}\0mean\0${this.maxTokens}\0${this.maxInputChars}\0${this.contentHash}`,
      )
      .digest("hex");
    return {
      name: this.name,
      dims: this.dims,
      params: {
        model: this.modelName,
        path: this.folder,
        dtype: this.dtype,
        pooling: "mean",
        maxTokens: this.maxTokens,
        maxInputChars: this.maxInputChars,
      },
      paramsHash,
    };
  }

  async embed(batch: string[]): Promise<Float32Array[]> {
    if (!Array.isArray(batch)) throw new TypeError("transformers embedder: embed() takes an array of strings");
    // Blank texts are the zero vector (similar to nothing), as with every embedder here — not the
    // model's vector for "[CLS] [SEP]", which would make all empty chunks each other's best match.
    const out: Float32Array[] = batch.map(() => new Float32Array(this.dims));
    const todo = batch.flatMap((t, i) => (typeof t === "string" && t.trim() === "" ? [] : [i]));
    for (let i = 0; i < todo.length; i += this.batchSize) {
      const ids = todo.slice(i, i + this.batchSize);
      const vectors = await this.forward(
        ids.map((j) => batch[j]!),
        false,
      );
      ids.forEach((j, k) => (out[j] = vectors[k]!));
    }
    return out;
  }

  private async forward(texts: string[], probing: boolean): Promise<Float32Array[]> {
    const cut = texts.map((t) => {
      if (typeof t !== "string")
        throw new TypeError(`transformers embedder: every input must be a string (got ${typeof t})`);
      if (t.length <= this.maxInputChars) return t;
      this.truncatedInputs++;
      return t.slice(0, this.maxInputChars);
    });
    const inputs = this.tokenizer(cut, { padding: true, truncation: true, max_length: this.maxTokens });
    let outputs: Record<string, TensorLike | undefined>;
    try {
      outputs = (await this.model(inputs)) as Record<string, TensorLike | undefined>;
    } catch (error) {
      throw new TransformersModelError(
        `transformers embedder (${this.modelName}): the model failed on a batch of ${texts.length}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    const hidden = outputs.last_hidden_state ?? outputs.token_embeddings;
    if (!hidden || hidden.dims.length !== 3) {
      throw new TransformersModelError(
        `transformers embedder (${this.modelName}): the model has no [batch, tokens, dims] output (outputs: ${Object.keys(outputs).join(", ")}); use a feature-extraction export`,
      );
    }
    const [batch, tokens, dims] = hidden.dims as [number, number, number];
    if (batch !== texts.length || (!probing && dims !== this.dims)) {
      throw new TransformersModelError(
        `transformers embedder (${this.modelName}): output shape [${hidden.dims.join(", ")}] does not match ${texts.length} texts × ${this.dims} dims`,
      );
    }
    return meanPoolNormalised(
      hidden.data,
      (inputs as { attention_mask: TensorLike }).attention_mask.data,
      batch,
      tokens,
      dims,
    );
  }
}

/** Mean over the tokens whose mask is 1, then L2-normalised; a text without tokens (or whose mean is
 * zero) stays the zero vector, as in the hash embedder. */
export function meanPoolNormalised(
  hidden: ArrayLike<number | bigint>,
  mask: ArrayLike<number | bigint>,
  batch: number,
  tokens: number,
  dims: number,
): Float32Array[] {
  const out: Float32Array[] = [];
  for (let b = 0; b < batch; b++) {
    const sum = new Float64Array(dims);
    let count = 0;
    for (let t = 0; t < tokens; t++) {
      if (Number(mask[b * tokens + t]) === 0) continue;
      count++;
      const base = (b * tokens + t) * dims;
      for (let d = 0; d < dims; d++) sum[d]! += Number(hidden[base + d]);
    }
    let norm = 0;
    for (let d = 0; d < dims; d++) norm += sum[d]! * sum[d]!;
    const v = new Float32Array(dims);
    if (count > 0 && norm > 0 && Number.isFinite(norm)) {
      const inv = 1 / Math.sqrt(norm);
      for (let d = 0; d < dims; d++) v[d] = sum[d]! * inv;
    }
    out.push(v);
  }
  return out;
}

async function resolveModel(
  options: TransformersEmbedderOptions,
): Promise<{ folder: string; id: string; remote: boolean; cacheDir?: string }> {
  const model = options.model?.trim();
  if (!model)
    throw new TransformersModelError(
      "transformers embedder: no model folder given (set TRANSFORMERS_MODEL_PATH to a folder with config.json, tokenizer.json, tokenizer_config.json and onnx/model.onnx)",
    );
  const local = path.resolve(model);
  const isFolder = await stat(local).then(
    (s) => s.isDirectory(),
    () => false,
  );
  const looksLikeId = /^[\w.-]+\/[\w.-]+$/.test(model) && !model.includes("..");
  if (options.allowRemote && !isFolder && looksLikeId) {
    if (!options.cacheDir)
      throw new TransformersModelError(
        `transformers embedder: downloading "${model}" needs a cache folder to store it in`,
      );
    const cacheDir = path.resolve(options.cacheDir);
    // transformers.js' file cache stores a download of "org/name/<file>" at cacheDir/org/name/<file>,
    // the same layout as a local folder, so the downloaded copy is then checked and hashed like one.
    return { folder: path.join(cacheDir, model), id: model, remote: true, cacheDir };
  }
  // A local folder is passed to transformers.js by absolute path (which it never mistakes for a Hub id).
  return { folder: local, id: local, remote: false };
}

async function assertComplete(folder: string, files: string[]): Promise<void> {
  const info = await stat(folder).catch(() => null);
  const hint = `A model folder needs ${files.join(", ")} (a Hugging Face repo exported for transformers.js, e.g. Xenova/all-MiniLM-L6-v2, copied there).`;
  if (!info) throw new TransformersModelError(`transformers embedder: model folder ${folder} does not exist. ${hint}`);
  if (!info.isDirectory())
    throw new TransformersModelError(`transformers embedder: ${folder} is not a folder. ${hint}`);
  const missing: string[] = [];
  for (const f of files) {
    const s = await stat(path.join(folder, f)).catch(() => null);
    if (!s?.isFile() || s.size === 0) missing.push(f);
  }
  if (missing.length)
    throw new TransformersModelError(
      `transformers embedder: model folder ${folder} is incomplete: missing ${missing.join(", ")}. ${hint}`,
    );
}

/** sha256 over (name, sha256(content)) of each file, streamed (weights can be hundreds of MB). */
async function hashFiles(folder: string, files: string[]): Promise<string> {
  const all = createHash("sha256");
  for (const f of files) {
    const h = createHash("sha256");
    for await (const chunk of createReadStream(path.join(folder, f))) h.update(chunk as Buffer);
    all.update(`${f}\0${h.digest("hex")}\0`);
  }
  return all.digest("hex");
}
