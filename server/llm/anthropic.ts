/**
 * Anthropic Messages API adapter: translates the neutral request, streams raw SSE events and turns
 * them back into neutral events.
 *
 * Prompt caching: cache_control breakpoints on the system prompt, the last tool definition and the
 * last block of the conversation, so iteration N of a tool loop reads everything up to iteration
 * N-1 from cache (3 of the 4 breakpoints Anthropic allows).
 *
 * Thinking: current models think by default, and a tool loop must send each assistant turn back
 * exactly as received, thinking blocks and their signatures included, in their original order.
 * So events are yielded in block order and thinking comes back as reasoning blocks.
 */
import Anthropic from "@anthropic-ai/sdk";
import type {
  ContentBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  RawMessageStreamEvent,
  Tool,
  ToolChoice as AnthropicToolChoice,
} from "@anthropic-ai/sdk/resources/messages/messages";
import { PROVIDER_INFO } from "./catalog.ts";
import { LlmError, registerSdkErrors, StreamCutError } from "./errors.ts";
import { type ConnectionOptions, type ProviderAdapter, type ProviderRequest, parseToolArguments } from "./provider.ts";
import { signallingFetch, signallingFetchOver } from "./request-sent.ts";
import type { ContentBlock, ImageBlock, Message, ProviderEvent, ToolChoice, Usage } from "./types.ts";

registerSdkErrors(Anthropic);

const EPHEMERAL = { type: "ephemeral" } as const;

/** SDK 1.x no longer lists temperature in its types; the API still accepts it for the models that do. */
type AnthropicParams = MessageCreateParamsStreaming & { temperature?: number };

export function toAnthropicParams(req: ProviderRequest): AnthropicParams {
  const params: AnthropicParams = {
    model: req.model,
    max_tokens: req.maxTokens,
    messages: toAnthropicMessages(req.messages, req.model),
    stream: true,
  };
  if (req.system) params.system = [{ type: "text", text: req.system, cache_control: EPHEMERAL }];
  if (req.tools.length > 0) {
    params.tools = req.tools.map((t, i): Tool => ({
      name: t.name,
      description: t.description,
      input_schema: t.inputSchema as Tool.InputSchema,
      ...(i === req.tools.length - 1 ? { cache_control: EPHEMERAL } : {}),
    }));
    if (req.toolChoice) params.tool_choice = toolChoice(req.toolChoice);
  }
  if (req.temperature !== undefined) params.temperature = req.temperature;
  if (req.reasoningEffort) params.output_config = { effort: req.reasoningEffort as "low" | "medium" | "high" };
  return params;
}

export function toAnthropicMessages(messages: Message[], model: string): MessageParam[] {
  const out = messages.map(
    (m): MessageParam =>
      ({ role: m.role, content: m.content.filter((b) => keep(b, model)).map(toBlock) }) as MessageParam,
  );
  // Thinking blocks cannot carry cache_control; mark the last block that can.
  const last = out.at(-1)?.content;
  const target = Array.isArray(last)
    ? last.findLast((b) => b.type !== "thinking" && b.type !== "redacted_thinking")
    : undefined;
  if (target) Object.assign(target, { cache_control: EPHEMERAL });
  return out;
}

function keep(b: ContentBlock, model: string): boolean {
  if (b.type === "text") return b.text.length > 0; // the API rejects empty text blocks
  // Signatures are bound to the model that wrote them; another model's thinking would be rejected.
  if (b.type === "reasoning")
    return (
      b.provider === "anthropic" && b.model === model && (b.signature !== undefined || b.redactedData !== undefined)
    );
  return true;
}

function toBlock(b: ContentBlock): ContentBlockParam {
  switch (b.type) {
    case "text":
      return { type: "text", text: b.text };
    case "image":
      return image(b);
    case "tool_use":
      return { type: "tool_use", id: b.id, name: b.name, input: b.input };
    case "tool_result":
      return {
        type: "tool_result",
        tool_use_id: b.toolUseId,
        content:
          typeof b.content === "string"
            ? b.content
            : b.content.map((c) => (c.type === "text" ? { type: "text" as const, text: c.text } : image(c))),
        ...(b.isError ? { is_error: true } : {}),
      };
    case "reasoning":
      return b.redactedData !== undefined
        ? { type: "redacted_thinking", data: b.redactedData }
        : { type: "thinking", thinking: b.text, signature: b.signature ?? "" };
  }
}

function image(b: ImageBlock) {
  const source =
    b.source.kind === "url"
      ? ({ type: "url", url: b.source.url } as const)
      : ({ type: "base64", media_type: b.source.mediaType as "image/png", data: b.source.data } as const);
  return { type: "image" as const, source };
}

function toolChoice(c: ToolChoice): AnthropicToolChoice {
  if (c === "auto") return { type: "auto" };
  if (c === "none") return { type: "none" };
  if (c === "required") return { type: "any" };
  return { type: "tool", name: c.name };
}

export function createAnthropicAdapter(conn: ConnectionOptions): ProviderAdapter {
  const client = new Anthropic({
    apiKey: conn.apiKey,
    // Always explicit: left undefined, the SDK would read ANTHROPIC_BASE_URL from the environment itself.
    baseURL: conn.baseURL ?? PROVIDER_INFO.anthropic.defaultBaseURL,
    maxRetries: 0,
    timeout: conn.requestTimeoutMs,
    fetch: conn.fetch ? signallingFetchOver(conn.fetch) : signallingFetch,
    ...(conn.headers ? { defaultHeaders: conn.headers } : {}),
  });
  return {
    provider: "anthropic",
    async *stream(req, signal) {
      const stream = await client.messages.create(toAnthropicParams(req), { signal });
      yield* fromAnthropicEvents(stream, req.model);
    },
  };
}

type OpenBlock =
  | { kind: "tool"; id: string; name: string; json: string }
  | { kind: "thinking"; text: string; signature: string }
  | { kind: "redacted"; data: string };

/** Neutral events from raw Messages SSE events, in block order. */
export async function* fromAnthropicEvents(
  events: AsyncIterable<RawMessageStreamEvent>,
  model: string,
): AsyncGenerator<ProviderEvent> {
  const open = new Map<number, OpenBlock>();
  let badToolCall: SyntaxError | undefined;
  let stopReason: string | null = null;
  for await (const ev of events) {
    switch (ev.type) {
      case "message_start":
        yield { type: "usage", usage: inputUsage(ev.message.usage) };
        yield { type: "usage", usage: { outputTokens: ev.message.usage.output_tokens } };
        break;
      case "content_block_start": {
        const b = ev.content_block;
        if (b.type === "tool_use") open.set(ev.index, { kind: "tool", id: b.id, name: b.name, json: "" });
        else if (b.type === "thinking")
          open.set(ev.index, { kind: "thinking", text: b.thinking, signature: b.signature });
        else if (b.type === "redacted_thinking") open.set(ev.index, { kind: "redacted", data: b.data });
        else if (b.type === "text" && b.text) yield { type: "text_delta", text: b.text };
        break;
      }
      case "content_block_delta": {
        const d = ev.delta;
        const b = open.get(ev.index);
        if (d.type === "text_delta") yield { type: "text_delta", text: d.text };
        else if (d.type === "input_json_delta" && b?.kind === "tool") b.json += d.partial_json;
        else if (d.type === "thinking_delta" && b?.kind === "thinking") b.text += d.thinking;
        else if (d.type === "signature_delta" && b?.kind === "thinking") b.signature += d.signature;
        break;
      }
      case "content_block_stop": {
        const b = open.get(ev.index);
        open.delete(ev.index);
        if (b?.kind === "thinking") {
          yield {
            type: "reasoning",
            block: { type: "reasoning", provider: "anthropic", model, text: b.text, signature: b.signature },
          };
        } else if (b?.kind === "redacted") {
          yield {
            type: "reasoning",
            block: { type: "reasoning", provider: "anthropic", model, text: "", redactedData: b.data },
          };
        } else if (b?.kind === "tool") {
          try {
            yield { type: "tool_use", id: b.id, name: b.name, input: parseToolArguments(b.name, b.json) };
          } catch (e) {
            // Decided at the end: harmless when max_tokens cut the call short, an error otherwise.
            badToolCall ??= e as SyntaxError;
          }
        }
        break;
      }
      case "message_delta": {
        stopReason = ev.delta.stop_reason ?? stopReason;
        // Cumulative figures; input ones are optional here and only replace message_start's when present.
        yield {
          type: "usage",
          usage: {
            outputTokens: ev.usage.output_tokens,
            ...(ev.usage.input_tokens != null ? inputUsage(ev.usage) : {}),
          },
        };
        break;
      }
      case "message_stop":
        break;
    }
  }
  if (stopReason === null) throw new StreamCutError("no stop_reason from the Messages stream");
  const truncated = stopReason === "max_tokens" || stopReason === "model_context_window_exceeded";
  if (badToolCall && !truncated) throw badToolCall;
  if (stopReason === "refusal") {
    throw new LlmError({
      kind: "invalid_response",
      provider: "anthropic",
      model,
      detail: "the model refused to answer (stop_reason refusal)",
    });
  }
  yield { type: "stop", reason: truncated ? "max_tokens" : stopReason === "tool_use" ? "tool_use" : "end_turn" };
}

/** Anthropic counts cached prompt tokens apart from input_tokens; the neutral figure includes them. */
function inputUsage(u: {
  input_tokens: number | null;
  cache_read_input_tokens: number | null;
  cache_creation_input_tokens: number | null;
}): Partial<Usage> {
  const read = u.cache_read_input_tokens ?? 0;
  const write = u.cache_creation_input_tokens ?? 0;
  return { inputTokens: (u.input_tokens ?? 0) + read + write, cacheReadTokens: read, cacheWriteTokens: write };
}
