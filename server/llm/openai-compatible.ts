/**
 * Chat Completions adapter for OpenAI-compatible servers (Ollama, vLLM, llama.cpp, LM Studio,
 * OpenRouter …). Only fields every such server accepts are sent. Two tool modes: "native" uses the
 * tools / tool_calls fields; "json" describes the tools in the prompt and parses <tool_call> blocks
 * out of the text, for models served without tool-calling support.
 */
import { createOpenAIClient } from "./openai-client.ts";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionToolChoiceOption,
} from "openai/resources/chat/completions";
import { LlmError, StreamCutError } from "./errors.ts";
import { TextToolCallStreamer, jsonToolInstructions, renderJsonToolHistory } from "./json-tools.ts";
import { type ConnectionOptions, type ProviderAdapter, type ProviderRequest, toolUses } from "./provider.ts";
import type { ContentBlock, Message, ProviderEvent, ToolChoice, ToolDefinition } from "./types.ts";

export type ToolMode = "native" | "json";

export interface CompatibleOptions {
  toolMode: ToolMode;
  /** stream_options.include_usage; a few old servers reject the field. */
  streamUsage: boolean;
}

/** Fields extraBody may not replace: they are what the request is. */
const RESERVED_BODY_FIELDS = new Set(["model", "messages", "stream", "stream_options", "tools", "tool_choice"]);

export function toChatParams(req: ProviderRequest, opts: CompatibleOptions): ChatCompletionCreateParamsStreaming {
  const json = opts.toolMode === "json" && req.tools.length > 0 && req.toolChoice !== "none";
  const system = json ? [req.system, jsonToolInstructions(req.tools)].filter(Boolean).join("\n\n") : req.system;
  const messages: ChatCompletionMessageParam[] = system ? [{ role: "system", content: system }] : [];
  if (json) messages.push(...renderJsonToolHistory(req.messages));
  else for (const m of req.messages) messages.push(...toChatMessages(m));
  const params: ChatCompletionCreateParamsStreaming = {
    model: req.model,
    messages,
    max_tokens: req.maxTokens,
    stream: true,
  };
  if (opts.streamUsage) params.stream_options = { include_usage: true };
  if (req.temperature !== undefined) params.temperature = req.temperature;
  if (req.reasoningEffort) params.reasoning_effort = req.reasoningEffort as "low";
  if (req.topP !== undefined) params.top_p = req.topP;
  for (const [key, value] of Object.entries(req.extraBody ?? {}))
    if (!RESERVED_BODY_FIELDS.has(key)) (params as unknown as Record<string, unknown>)[key] = value;
  if (!json && req.tools.length > 0) {
    params.tools = req.tools.map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.inputSchema },
    }));
    if (req.toolChoice) params.tool_choice = toolChoice(req.toolChoice);
  }
  return params;
}

/** One neutral message → Chat messages. Tool results go first: each must follow its assistant turn. */
export function toChatMessages(m: Message): ChatCompletionMessageParam[] {
  if (m.role === "assistant") {
    const text = m.content.map((b) => (b.type === "text" ? b.text : "")).join("");
    const calls = m.content.filter((b) => b.type === "tool_use");
    const msg: ChatCompletionMessageParam = { role: "assistant", content: text || null };
    if (calls.length)
      msg.tool_calls = calls.map((c) => ({
        id: c.id,
        type: "function",
        function: { name: c.name, arguments: JSON.stringify(c.input) },
      }));
    return [msg];
  }
  const out: ChatCompletionMessageParam[] = [];
  const parts: ChatCompletionContentPart[] = [];
  for (const b of m.content) {
    if (b.type === "tool_result")
      out.push({ role: "tool", tool_call_id: b.toolUseId, content: toolText(b.content, b.isError) });
    else if (b.type === "text") parts.push({ type: "text", text: b.text });
    else if (b.type === "image") parts.push({ type: "image_url", image_url: { url: imageUrl(b) } });
  }
  if (parts.length) {
    const onlyText = parts.every((p) => p.type === "text");
    out.push({ role: "user", content: onlyText ? parts.map((p) => (p as { text: string }).text).join("") : parts });
  }
  return out;
}

function toolText(content: Extract<ContentBlock, { type: "tool_result" }>["content"], isError?: boolean): string {
  const text =
    typeof content === "string"
      ? content
      : content.map((c) => (c.type === "text" ? c.text : "[image omitted]")).join("");
  return isError ? `Error: ${text}` : text; // Chat Completions has no error flag on tool messages
}

function imageUrl(b: Extract<ContentBlock, { type: "image" }>): string {
  return b.source.kind === "url" ? b.source.url : `data:${b.source.mediaType};base64,${b.source.data}`;
}

function toolChoice(c: ToolChoice): ChatCompletionToolChoiceOption {
  return typeof c === "string" ? c : { type: "function", function: { name: c.name } };
}

export function createOpenAICompatibleAdapter(conn: ConnectionOptions, opts: CompatibleOptions): ProviderAdapter {
  if (!conn.baseURL)
    throw new Error("openai-compatible needs a base URL (for example http://localhost:11434/v1 for Ollama).");
  const client = createOpenAIClient(conn, conn.baseURL);
  return {
    provider: "openai-compatible",
    async *stream(req, signal) {
      const json = opts.toolMode === "json" && req.tools.length > 0 && req.toolChoice !== "none";
      const params = toChatParams(req, opts);
      if (req.wireStreaming === false) {
        const { stream: _stream, stream_options: _options, ...body } = params;
        const completion = await client.chat.completions.create({ ...body, stream: false }, { signal });
        yield* fromChatChunks(asChunks(completion), req.model, json ? req.tools : undefined);
        return;
      }
      const stream = await client.chat.completions.create(params, { signal });
      yield* fromChatChunks(stream, req.model, json ? req.tools : undefined);
    },
  };
}

/** A whole (non-streamed) completion as the one chunk it amounts to, so both paths share fromChatChunks. */
async function* asChunks(c: ChatCompletion): AsyncGenerator<ChatCompletionChunk> {
  const choice = c.choices?.[0];
  yield {
    id: c.id,
    object: "chat.completion.chunk",
    created: c.created,
    model: c.model,
    ...(c.usage ? { usage: c.usage } : {}),
    choices: choice
      ? [
          {
            index: 0,
            finish_reason: choice.finish_reason,
            delta: {
              role: "assistant",
              content: choice.message?.content ?? null,
              tool_calls: (choice.message?.tool_calls ?? []).flatMap((t, index) =>
                t.type === "function" ? [{ index, id: t.id, type: "function" as const, function: t.function }] : [],
              ),
            },
          },
        ]
      : [],
  };
}

/** Neutral events from Chat Completions chunks; `jsonTools` switches on text tool-call parsing. */
export async function* fromChatChunks(
  chunks: AsyncIterable<ChatCompletionChunk>,
  model: string,
  jsonTools?: ToolDefinition[],
): AsyncGenerator<ProviderEvent> {
  const calls: Array<{ id: string; name: string; args: string }> = [];
  const streamer = jsonTools ? new TextToolCallStreamer() : undefined;
  let finish: string | null = null;
  for await (const chunk of chunks) {
    if (chunk.usage) {
      yield {
        type: "usage",
        usage: {
          inputTokens: chunk.usage.prompt_tokens,
          outputTokens: chunk.usage.completion_tokens,
          cacheReadTokens: chunk.usage.prompt_tokens_details?.cached_tokens ?? 0,
          cacheWriteTokens: 0,
        },
      };
    }
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    const text = choice.delta?.content;
    if (text) {
      const out = streamer ? streamer.push(text) : text;
      if (out) yield { type: "text_delta", text: out };
    }
    for (const tc of choice.delta?.tool_calls ?? []) {
      const c = (calls[tc.index] ??= { id: "", name: "", args: "" });
      if (tc.id) c.id = tc.id;
      if (tc.function?.name) c.name += tc.function.name;
      if (tc.function?.arguments) c.args += tc.function.arguments;
    }
    finish = choice.finish_reason ?? finish;
  }
  // [DONE] is optional on some servers; a finish_reason is not.
  if (finish === null) throw new StreamCutError("no finish_reason in the Chat Completions stream");
  if (finish === "content_filter") {
    throw new LlmError({
      kind: "invalid_response",
      provider: "openai-compatible",
      model,
      detail: "the answer was blocked by the content filter",
    });
  }
  const truncated = finish === "length";
  if (streamer) {
    yield* finishJsonMode(streamer, jsonTools!, truncated, model);
    return;
  }
  // Some servers omit ids (older Ollama); tool results still need one to refer to.
  const finished = calls.flatMap((c, i) =>
    c ? [{ id: c.id || `call_${i}_${Date.now().toString(36)}`, name: c.name, json: c.args }] : [],
  );
  yield* toolUses(finished, truncated);
  yield { type: "stop", reason: truncated ? "max_tokens" : finished.length ? "tool_use" : "end_turn" };
}

function* finishJsonMode(
  streamer: TextToolCallStreamer,
  tools: ToolDefinition[],
  truncated: boolean,
  model: string,
): Generator<ProviderEvent> {
  if (truncated) {
    // A half-written call cannot be parsed; hand back everything as text and say why it stopped.
    const rest = streamer.unsent();
    if (rest) yield { type: "text_delta", text: rest };
    yield { type: "stop", reason: "max_tokens" };
    return;
  }
  const parsed = streamer.finish(tools);
  if (parsed.rest) yield { type: "text_delta", text: parsed.rest };
  if (parsed.errors.length) {
    throw new LlmError({
      kind: "invalid_response",
      provider: "openai-compatible",
      model,
      detail: `invalid tool call in the text answer: ${parsed.errors.join("; ")}`,
    });
  }
  for (const c of parsed.calls) yield { type: "tool_use", id: c.id, name: c.name, input: c.input };
  yield { type: "stop", reason: parsed.calls.length ? "tool_use" : "end_turn" };
}
