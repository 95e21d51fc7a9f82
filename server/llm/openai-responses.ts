/**
 * OpenAI Responses API adapter. Stateless on purpose (store: false, full history every call): a
 * self-hosted reviewer should not leave customer code in the provider's conversation store, and the
 * history stays ours to translate. Reasoning items are therefore not replayed between turns.
 */
import { createOpenAIClient } from "./openai-client.ts";
import type {
  FunctionTool,
  ResponseCreateParamsStreaming,
  ResponseStreamEvent,
  ToolChoiceFunction,
  ToolChoiceOptions,
} from "openai/resources/responses/responses";
import { PROVIDER_INFO } from "./catalog.ts";
import { LlmError, StreamCutError, kindForStatus } from "./errors.ts";
import { type ConnectionOptions, type ProviderAdapter, type ProviderRequest, parseToolArguments } from "./provider.ts";
import { toResponsesInput } from "./responses-translate.ts";
import type { ProviderEvent, ToolChoice, Usage } from "./types.ts";

export function toResponsesParams(req: ProviderRequest): ResponseCreateParamsStreaming {
  const params: ResponseCreateParamsStreaming = {
    model: req.model,
    input: toResponsesInput(req.messages),
    max_output_tokens: req.maxTokens,
    stream: true,
    store: false,
  };
  if (req.system) params.instructions = req.system;
  if (req.tools.length > 0) {
    params.tools = req.tools.map((t): FunctionTool => ({
      type: "function",
      name: t.name,
      description: t.description,
      parameters: t.inputSchema,
      strict: false,
    }));
    if (req.toolChoice) params.tool_choice = toolChoice(req.toolChoice);
  }
  if (req.temperature !== undefined) params.temperature = req.temperature;
  if (req.reasoningEffort) params.reasoning = { effort: req.reasoningEffort as "low" };
  if (req.cacheKey) params.prompt_cache_key = req.cacheKey;
  return params;
}

function toolChoice(c: ToolChoice): ToolChoiceOptions | ToolChoiceFunction {
  return typeof c === "string" ? c : { type: "function", name: c.name };
}

export function createOpenAIResponsesAdapter(conn: ConnectionOptions): ProviderAdapter {
  const client = createOpenAIClient(conn, conn.baseURL ?? PROVIDER_INFO.openai.defaultBaseURL);
  return {
    provider: "openai",
    async *stream(req, signal) {
      const stream = await client.responses.create(toResponsesParams(req), { signal });
      yield* fromResponsesEvents(stream, req.model);
    },
  };
}

export async function* fromResponsesEvents(
  events: AsyncIterable<ResponseStreamEvent>,
  model: string,
): AsyncGenerator<ProviderEvent> {
  const calls = new Map<string, { callId: string; name: string; args: string }>();
  let sawCall = false;
  let badToolCall: SyntaxError | undefined;
  const fail = (kind: ConstructorParameters<typeof LlmError>[0]["kind"], detail: string) =>
    new LlmError({ kind, provider: "openai", model, detail });
  for await (const ev of events) {
    switch (ev.type) {
      case "response.output_text.delta":
        yield { type: "text_delta", text: ev.delta };
        break;
      case "response.refusal.delta":
        yield { type: "text_delta", text: ev.delta };
        break;
      case "response.output_item.added":
        if (ev.item.type === "function_call")
          calls.set(ev.item.id ?? ev.item.call_id, {
            callId: ev.item.call_id,
            name: ev.item.name,
            args: ev.item.arguments ?? "",
          });
        break;
      case "response.function_call_arguments.delta": {
        const c = calls.get(ev.item_id);
        if (c) c.args += ev.delta;
        break;
      }
      case "response.output_item.done":
        if (ev.item.type === "function_call") {
          const c = calls.get(ev.item.id ?? ev.item.call_id);
          // The done item carries the full arguments; the accumulated deltas are the fallback.
          const args = ev.item.arguments || c?.args || "";
          sawCall = true;
          try {
            yield {
              type: "tool_use",
              id: ev.item.call_id,
              name: ev.item.name,
              input: parseToolArguments(ev.item.name, args),
            };
          } catch (e) {
            badToolCall ??= e as SyntaxError; // fatal unless max_output_tokens cut it short
          }
        }
        break;
      case "response.completed":
      case "response.incomplete": {
        const u = ev.response.usage;
        if (u) yield { type: "usage", usage: usage(u) };
        if (ev.type === "response.completed") {
          if (badToolCall) throw badToolCall;
          yield { type: "stop", reason: sawCall ? "tool_use" : "end_turn" };
          return;
        }
        const why = ev.response.incomplete_details?.reason;
        if (why === "max_output_tokens") {
          yield { type: "stop", reason: "max_tokens" };
          return;
        }
        throw fail("invalid_response", `response incomplete: ${why ?? "unknown reason"}`);
      }
      case "response.failed": {
        const e = ev.response.error;
        throw fail(
          e?.code === "server_error" ? "server" : e?.code === "rate_limit_exceeded" ? "rate_limit" : "invalid_response",
          `response failed: ${e?.message ?? "no message"}${e?.code ? ` (${e.code})` : ""}`,
        );
      }
      case "error": {
        const status = Number(ev.code);
        throw fail(
          Number.isInteger(status) && status >= 400 ? kindForStatus(status) : "server",
          `stream error: ${ev.message}${ev.code ? ` (${ev.code})` : ""}`,
        );
      }
    }
  }
  throw new StreamCutError("no response.completed from the Responses stream");
}

function usage(u: {
  input_tokens: number;
  output_tokens: number;
  input_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number } | null;
}): Usage {
  return {
    inputTokens: u.input_tokens,
    outputTokens: u.output_tokens,
    cacheReadTokens: u.input_tokens_details?.cached_tokens ?? 0,
    cacheWriteTokens: u.input_tokens_details?.cache_write_tokens ?? 0,
  };
}
