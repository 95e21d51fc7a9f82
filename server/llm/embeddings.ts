/**
 * OpenAI-compatible embeddings over the wire: the SDK call and the LLM client's retry policy
 * (server/llm/retry.ts: 429 / 5xx / network errors back off and retry, other 4xx fail at once).
 * What the vectors mean (order, dimension, normalisation) is the retrieval embedder's business
 * (server/retrieval/embed/openai.ts); this module only knows how to ask.
 */
import { classifyError, LlmError } from "./errors.ts";
import { createOpenAIClient } from "./openai-client.ts";
import { DEFAULT_RETRY, retryDelay, sleep, type RetryPolicy } from "./retry.ts";

export interface EmbeddingsEndpointOptions {
  baseURL: string;
  /** Optional for local servers without auth. */
  apiKey?: string;
  requestTimeoutMs: number;
  retry?: Partial<RetryPolicy>;
}

export interface EmbeddingsRequest {
  model: string;
  input: string[];
  /** Ask the model to shorten its vectors (text-embedding-3-*). */
  dimensions?: number;
}

/** A request that failed for good: the classified LLM error and how many attempts were made. */
export class EmbeddingsRequestError extends Error {
  constructor(
    readonly error: LlmError,
    readonly attempts: number,
  ) {
    super(error.message, { cause: error });
    this.name = "EmbeddingsRequestError";
  }
}

export interface EmbeddingsEndpoint {
  /** The raw response body (unvalidated: servers disagree on its details). */
  request(req: EmbeddingsRequest): Promise<unknown>;
}

export function createEmbeddingsEndpoint(options: EmbeddingsEndpointOptions): EmbeddingsEndpoint {
  const client = createOpenAIClient(
    // Local servers need no key; the SDK insists on one (and would read OPENAI_API_KEY otherwise).
    {
      apiKey: options.apiKey || "no-key",
      baseURL: options.baseURL,
      requestTimeoutMs: options.requestTimeoutMs,
      headers: undefined,
    },
    options.baseURL,
  );
  const policy = { ...DEFAULT_RETRY, ...options.retry };
  return {
    async request({ model, input, dimensions }) {
      for (let attempt = 0; ; attempt++) {
        try {
          // Plain floats: not every server speaks the SDK's default base64 (base64 is still accepted).
          return await client.embeddings.create({
            model,
            input,
            encoding_format: "float",
            ...(dimensions !== undefined ? { dimensions } : {}),
          });
        } catch (error) {
          const e = classifyError(error, "openai-compatible", model, false);
          const delay = retryDelay(e, attempt, policy);
          if (delay === undefined) throw new EmbeddingsRequestError(e, attempt + 1);
          await sleep(delay);
        }
      }
    },
  };
}
