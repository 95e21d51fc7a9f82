/**
 * Any OpenAI-compatible embeddings endpoint (OpenAI, Ollama, vLLM, LM Studio, TEI…) as an embedder.
 * The request itself (SDK, retries: 429 / 5xx / network errors back off, other 4xx fail at once) is
 * server/llm's `createEmbeddingsEndpoint`; this file owns what the vectors must look like.
 *
 * What the servers disagree on is handled here rather than trusted: vectors are requested as plain
 * floats (not every server speaks the SDK's default base64) but base64 is accepted too; results are
 * put back in input order by `index`; count, dimension and finiteness are checked; vectors are
 * L2-normalised (the store ranks by dot product, and not every model normalises). Empty texts are
 * never sent (OpenAI rejects them) and become the zero vector; texts over maxInputChars are cut, and
 * counted and reported through onTruncate.
 *
 * The record holds the model, the endpoint's host and the dimension; the API key never appears in it
 * nor in any error message.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import {
  createEmbeddingsEndpoint,
  type EmbeddingsEndpoint,
  EmbeddingsRequestError,
  type RetryPolicy,
} from "../../llm/index.ts";
import type { Embedder, EmbedderRecord } from "./types.ts";

export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";

export interface OpenAIEmbedderOptions {
  /** Default https://api.openai.com/v1. For Ollama http://localhost:11434/v1, for TEI http://host:port/v1. */
  baseURL?: string;
  /** Optional for local servers without auth. */
  apiKey?: string;
  model: string;
  /** Expected dimension; unset → learnt from one probe request when the embedder is created. */
  dims?: number;
  /** Send `dimensions` in each request (models that can shorten their vectors, e.g. text-embedding-3-*). Needs dims. */
  requestDimensions?: boolean;
  /** Inputs per request. Default 64 (TEI's default limit is 32: lower it there). */
  maxBatchSize?: number;
  /** Characters per input; longer inputs are cut. Default 24 000 (~8k tokens of code, OpenAI's limit). */
  maxInputChars?: number;
  /** Per request. Default 60 s. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Told about each input cut to maxInputChars (position in the embed() batch, original length). */
  onTruncate?: (note: { index: number; chars: number; keptChars: number }) => void;
}

export class EmbeddingEndpointError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly attempts: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "EmbeddingEndpointError";
  }
}

const responseSchema = z.object({
  data: z.array(
    z.object({ index: z.number().int().nonnegative(), embedding: z.union([z.array(z.number()), z.string()]) }),
  ),
});

/** The endpoint as shown to people: no credentials, no query string (Azure-style keys live there). */
export function displayEndpoint(baseURL: string): string {
  try {
    const u = new URL(baseURL);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/$/, "")}`;
  } catch {
    return "(invalid URL)";
  }
}

export class OpenAIEmbedder implements Embedder {
  readonly name = "openai";
  readonly dims: number;
  /** Inputs cut to maxInputChars so far. */
  truncatedInputs = 0;
  private readonly client: EmbeddingsEndpoint;
  private readonly endpoint: string;
  private readonly host: string;

  private constructor(
    private readonly options: Required<Pick<OpenAIEmbedderOptions, "model" | "maxBatchSize" | "maxInputChars">> &
      OpenAIEmbedderOptions,
    dims: number,
    client: EmbeddingsEndpoint,
  ) {
    this.dims = dims;
    this.client = client;
    const baseURL = options.baseURL ?? DEFAULT_OPENAI_BASE_URL;
    this.endpoint = displayEndpoint(baseURL);
    this.host = new URL(baseURL).host;
  }

  /** Validates the options; asks the endpoint for one vector when the dimension is not configured. */
  static async create(options: OpenAIEmbedderOptions): Promise<OpenAIEmbedder> {
    const baseURL = options.baseURL ?? DEFAULT_OPENAI_BASE_URL;
    let url: URL;
    try {
      url = new URL(baseURL);
    } catch {
      throw new Error(
        `openai embedder: "${displayEndpoint(baseURL)}" is not a URL (set EMBEDDINGS_BASE_URL to e.g. http://localhost:11434/v1)`,
      );
    }
    if (!/^https?:$/.test(url.protocol))
      throw new Error(`openai embedder: the endpoint must be http(s), got ${url.protocol}`);
    if (!options.model?.trim())
      throw new Error(
        `openai embedder: no model given for ${displayEndpoint(baseURL)} (set EMBEDDINGS_MODEL, e.g. text-embedding-3-small or nomic-embed-text)`,
      );
    const positive = (what: string, v: number | undefined) => {
      if (v !== undefined && (!Number.isInteger(v) || v < 1))
        throw new Error(`openai embedder: ${what} must be a positive whole number (got ${v})`);
    };
    positive("dims", options.dims);
    positive("max batch size", options.maxBatchSize);
    positive("max input chars", options.maxInputChars);
    if (options.requestDimensions && options.dims === undefined)
      throw new Error("openai embedder: requesting a dimension needs dims (EMBEDDINGS_DIMS)");
    const full = {
      ...options,
      model: options.model.trim(),
      maxBatchSize: options.maxBatchSize ?? 64,
      maxInputChars: options.maxInputChars ?? 24_000,
    };
    const client = createEmbeddingsEndpoint({
      baseURL,
      apiKey: options.apiKey,
      requestTimeoutMs: options.timeoutMs ?? 60_000,
      retry: options.retry,
    });
    if (options.dims !== undefined) return new OpenAIEmbedder(full, options.dims, client);
    const probe = new OpenAIEmbedder(full, 0, client);
    const [v] = await probe.request(["dimension probe"]);
    return new OpenAIEmbedder(full, v!.length, client);
  }

  record(): EmbedderRecord {
    const { model, requestDimensions } = this.options;
    // The host is part of the space: the same model name on another server (TEI ignores the name
    // entirely) is not known to be the same model.
    const paramsHash = createHash("sha256").update(`openai\0${this.host}\0${model}\0${this.dims}`).digest("hex");
    return {
      name: this.name,
      dims: this.dims,
      params: { model, host: this.host, requestDimensions: !!requestDimensions },
      paramsHash,
    };
  }

  async embed(batch: string[]): Promise<Float32Array[]> {
    if (!Array.isArray(batch)) throw new TypeError("openai embedder: embed() takes an array of strings");
    const out: Float32Array[] = batch.map(() => new Float32Array(this.dims));
    const todo: { index: number; text: string }[] = [];
    batch.forEach((text, index) => {
      if (typeof text !== "string")
        throw new TypeError(`openai embedder: input ${index} is not a string (got ${typeof text})`);
      if (text.trim() === "") return;
      const { maxInputChars } = this.options;
      if (text.length > maxInputChars) {
        this.truncatedInputs++;
        this.options.onTruncate?.({ index, chars: text.length, keptChars: maxInputChars });
        text = text.slice(0, maxInputChars);
      }
      todo.push({ index, text });
    });
    for (let i = 0; i < todo.length; i += this.options.maxBatchSize) {
      const part = todo.slice(i, i + this.options.maxBatchSize);
      const vectors = await this.request(part.map((p) => p.text));
      part.forEach((p, j) => (out[p.index] = vectors[j]!));
    }
    return out;
  }

  /** One embeddings call with retries; vectors in input order, checked and L2-normalised. */
  private async request(input: string[]): Promise<Float32Array[]> {
    const { model, requestDimensions, apiKey } = this.options;
    const where = `${this.endpoint} (model ${model})`;
    // Servers may echo what they received; a key must not reach logs or the UI through their message.
    const redact = (s: string) => (apiKey && apiKey.length >= 4 ? s.split(apiKey).join("***") : s);
    let raw: unknown;
    try {
      raw = await this.client.request({ model, input, dimensions: requestDimensions ? this.dims : undefined });
    } catch (error) {
      if (!(error instanceof EmbeddingsRequestError)) throw error;
      const { error: e, attempts } = error;
      const status = e.status === undefined ? "" : ` ${e.status}`;
      // LlmError's message is "<provider> (<model>) <status>: <detail>"; ours names the endpoint instead.
      const prefix = `openai-compatible (${model})${status}: `;
      const detail = redact(e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message);
      const tries = attempts > 1 ? ` (after ${attempts} attempts)` : "";
      throw new EmbeddingEndpointError(
        `embeddings endpoint ${where}${status}: ${detail}${tries}${hintFor(e.status, e.kind)}`,
        e.status,
        attempts,
        { cause: e.cause },
      );
    }
    return this.vectors(raw, input.length, where);
  }

  private vectors(raw: unknown, count: number, where: string): Float32Array[] {
    const bad = (what: string) =>
      new EmbeddingEndpointError(
        `embeddings endpoint ${where} returned ${what}; is it an OpenAI-compatible /embeddings endpoint?`,
        undefined,
        1,
      );
    const parsed = responseSchema.safeParse(raw);
    if (!parsed.success)
      throw bad(
        typeof raw === "string" ? "text instead of JSON" : "a response without a data list of {index, embedding}",
      );
    const byIndex = new Map(parsed.data.data.map((d) => [d.index, d.embedding]));
    if (parsed.data.data.length !== count || byIndex.size !== count)
      throw bad(`${parsed.data.data.length} embeddings for ${count} inputs`);
    const out: Float32Array[] = [];
    for (let i = 0; i < count; i++) {
      const e = byIndex.get(i);
      if (e === undefined) throw bad(`no embedding for input ${i}`);
      const v = typeof e === "string" ? decodeBase64Floats(e) : Float32Array.from(e);
      if (this.dims && v.length !== this.dims) {
        throw new EmbeddingEndpointError(
          `embeddings endpoint ${where} returned ${v.length}-dim vectors, but ${this.dims} were expected (EMBEDDINGS_DIMS, or the dimension the index was built with)`,
          undefined,
          1,
        );
      }
      if (v.length === 0) throw bad("an empty vector");
      let norm = 0;
      for (const x of v) norm += x * x;
      if (!Number.isFinite(norm)) throw bad("a vector with non-finite values");
      if (norm > 0) {
        const inv = 1 / Math.sqrt(norm);
        for (let d = 0; d < v.length; d++) v[d]! *= inv;
      }
      out.push(v);
    }
    return out;
  }
}

function decodeBase64Floats(s: string): Float32Array {
  const bytes = Buffer.from(s, "base64");
  if (bytes.length % 4 !== 0) return new Float32Array(0);
  const v = new Float32Array(bytes.length / 4);
  for (let i = 0; i < v.length; i++) v[i] = bytes.readFloatLE(i * 4);
  return v;
}

function hintFor(status: number | undefined, kind: string): string {
  if (status === 401 || status === 403) return " — check EMBEDDINGS_API_KEY";
  if (status === 404) return " — check EMBEDDINGS_BASE_URL (usually ending in /v1) and that the server has this model";
  if (kind === "network" || kind === "timeout") return " — is the server running and reachable?";
  return "";
}
