/**
 * The contract between the client and a provider adapter. An adapter makes one attempt: it yields
 * neutral events and throws (SDK errors, StreamCutError, LlmError) on failure. Retries, timeouts,
 * budgets and assembling the assistant turn are the client's job, so they behave the same everywhere.
 */
import type { Message, ProviderEvent, ProviderId, ToolChoice, ToolDefinition } from "./types.ts";

export interface ProviderRequest {
  model: string;
  system: string | undefined;
  messages: Message[];
  tools: ToolDefinition[];
  toolChoice: ToolChoice | undefined;
  maxTokens: number;
  /** undefined = leave it out (the model rejects it). */
  temperature: number | undefined;
  /** Already mapped to a value the model accepts; undefined = leave it out. */
  reasoningEffort: string | undefined;
  cacheKey: string | undefined;
  /** openai-compatible only (see StreamRequestData): top_p, extra body fields, a non-streamed request. */
  topP?: number | undefined;
  extraBody?: Record<string, unknown> | undefined;
  wireStreaming?: boolean | undefined;
}

export interface ProviderAdapter {
  readonly provider: ProviderId;
  stream(request: ProviderRequest, signal: AbortSignal): AsyncIterable<ProviderEvent>;
}

/** Shared SDK connection settings. */
export interface ConnectionOptions {
  apiKey: string;
  baseURL: string | undefined;
  /** Milliseconds to wait for response headers. */
  requestTimeoutMs: number;
  headers: Record<string, string> | undefined;
  /** Default: the global fetch. */
  fetch?: typeof fetch | undefined;
}

/** Parses streamed tool arguments; empty means no arguments. Throws SyntaxError on bad JSON. */
export function parseToolArguments(name: string, json: string): Record<string, unknown> {
  if (json.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (e) {
    throw new SyntaxError(`arguments of tool call "${name}" are not valid JSON: ${(e as Error).message}`, { cause: e });
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    throw new SyntaxError(`arguments of tool call "${name}" are not a JSON object`);
  }
  return value as Record<string, unknown>;
}

/**
 * tool_use events for finished calls. When the answer was truncated, calls whose arguments do not
 * parse are dropped (the max_tokens stop says why); otherwise bad arguments are an error.
 */
export function* toolUses(
  calls: Array<{ id: string; name: string; json: string }>,
  truncated: boolean,
): Generator<ProviderEvent> {
  for (const c of calls) {
    let input: Record<string, unknown>;
    try {
      input = parseToolArguments(c.name, c.json);
    } catch (e) {
      if (truncated) continue;
      throw e;
    }
    yield { type: "tool_use", id: c.id, name: c.name, input };
  }
}
