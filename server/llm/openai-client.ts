/** The OpenAI SDK client both OpenAI adapters (Responses, Chat Completions) talk through. */
import OpenAI from "openai";
import { registerSdkErrors } from "./errors.ts";
import type { ConnectionOptions } from "./provider.ts";
import { signallingFetch, signallingFetchOver } from "./request-sent.ts";

registerSdkErrors(OpenAI);

export function createOpenAIClient(conn: ConnectionOptions, baseURL: string | undefined): OpenAI {
  return new OpenAI({
    apiKey: conn.apiKey,
    baseURL,
    // Explicit nulls so the SDK does not pick up OPENAI_ORG_ID / OPENAI_PROJECT_ID from the environment.
    organization: null,
    project: null,
    // Retries are the client's own (server/llm/retry.ts), uniform across providers.
    maxRetries: 0,
    timeout: conn.requestTimeoutMs,
    fetch: conn.fetch ? signallingFetchOver(conn.fetch) : signallingFetch,
    ...(conn.headers ? { defaultHeaders: conn.headers } : {}),
  });
}
