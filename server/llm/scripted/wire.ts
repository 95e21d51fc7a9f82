/**
 * Encodes one neutral scripted reply into the real wire formats: Anthropic Messages SSE, OpenAI
 * Responses SSE, Chat Completions SSE, and the matching non-streaming JSON bodies. Event order and
 * fields follow what the SDKs' parsers and stream helpers expect (see STACK.md, "LLM SDKs against a
 * local scripted server"): Anthropic needs `event:` lines, usage in message_start and message_stop;
 * Responses needs response.created first; Chat Completions is data-only and ends with [DONE].
 */
import type { Api } from "./script.ts";

export interface ReplyToolCall {
  id: string;
  name: string;
  /** The argument JSON split into the deltas it is streamed in. */
  argumentChunks: string[];
}

export interface Reply {
  model: string;
  /** Anthropic thinking block text; its signature is derived from it so tests can check the echo. */
  thinking: string | undefined;
  textChunks: string[];
  toolCalls: ReplyToolCall[];
  stopReason: "end_turn" | "tool_use" | "max_tokens";
  usage: { input: number; output: number; cacheRead: number; cacheWrite: number };
  /** Chat Completions sends a usage chunk only when the request asked for it. */
  chatUsageChunk: boolean;
}

export interface SseFrame {
  event?: string;
  data: string;
}

export function encodeStream(api: Api, r: Reply): SseFrame[] {
  return api === "anthropic" ? anthropicStream(r) : api === "responses" ? responsesStream(r) : chatStream(r);
}

export function encodeJson(api: Api, r: Reply): unknown {
  return api === "anthropic"
    ? anthropicMessage(r, true)
    : api === "responses"
      ? responseObject(r, true)
      : chatCompletion(r);
}

export function encodeError(api: Api, status: number, message: string): unknown {
  if (api === "anthropic") return { type: "error", error: { type: anthropicErrorType(status), message } };
  return {
    error: { message, type: openaiErrorType(status), param: null, code: status === 429 ? "rate_limit_exceeded" : null },
  };
}

export function frameToText(f: SseFrame): string {
  return `${f.event ? `event: ${f.event}\n` : ""}data: ${f.data}\n\n`;
}

const fullText = (r: Reply) => r.textChunks.join("");
const fullArgs = (c: ReplyToolCall) => c.argumentChunks.join("");
const safeJson = (s: string) => {
  try {
    return JSON.parse(s || "{}") as unknown;
  } catch {
    return {};
  }
};

// ---- Anthropic Messages ---------------------------------------------------------------------------

/** A stand-in for Anthropic's signature: deterministic, so a test can check it came back unchanged. */
export function signatureFor(thinking: string): string {
  return `sig:${Buffer.from(thinking).toString("base64")}`;
}

function anthropicUsage(r: Reply, final: boolean) {
  return {
    input_tokens: Math.max(0, r.usage.input - r.usage.cacheRead - r.usage.cacheWrite),
    output_tokens: final ? r.usage.output : 1,
    cache_creation_input_tokens: r.usage.cacheWrite,
    cache_read_input_tokens: r.usage.cacheRead,
  };
}

function anthropicMessage(r: Reply, complete: boolean) {
  const content: unknown[] = [];
  if (complete) {
    if (r.thinking !== undefined)
      content.push({ type: "thinking", thinking: r.thinking, signature: signatureFor(r.thinking) });
    if (r.textChunks.length) content.push({ type: "text", text: fullText(r), citations: null });
    for (const c of r.toolCalls)
      content.push({ type: "tool_use", id: c.id, name: c.name, input: safeJson(fullArgs(c)) });
  }
  return {
    id: "msg_scripted",
    type: "message",
    role: "assistant",
    model: r.model,
    content,
    stop_reason: complete ? r.stopReason : null,
    stop_sequence: null,
    usage: anthropicUsage(r, complete),
  };
}

function anthropicStream(r: Reply): SseFrame[] {
  const frames: SseFrame[] = [];
  const ev = (type: string, body: Record<string, unknown>) =>
    frames.push({ event: type, data: JSON.stringify({ type, ...body }) });
  ev("message_start", { message: anthropicMessage(r, false) });
  let index = 0;
  if (r.thinking !== undefined) {
    ev("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } });
    ev("content_block_delta", { index, delta: { type: "thinking_delta", thinking: r.thinking } });
    ev("content_block_delta", { index, delta: { type: "signature_delta", signature: signatureFor(r.thinking) } });
    ev("content_block_stop", { index });
    index++;
  }
  if (r.textChunks.length) {
    ev("content_block_start", { index, content_block: { type: "text", text: "" } });
    frames.push({ event: "ping", data: JSON.stringify({ type: "ping" }) });
    for (const text of r.textChunks) ev("content_block_delta", { index, delta: { type: "text_delta", text } });
    ev("content_block_stop", { index });
    index++;
  }
  for (const c of r.toolCalls) {
    ev("content_block_start", { index, content_block: { type: "tool_use", id: c.id, name: c.name, input: {} } });
    for (const partial_json of c.argumentChunks)
      ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } });
    ev("content_block_stop", { index });
    index++;
  }
  ev("message_delta", {
    delta: { stop_reason: r.stopReason, stop_sequence: null },
    usage: { output_tokens: r.usage.output },
  });
  ev("message_stop", {});
  return frames;
}

// ---- OpenAI Responses -----------------------------------------------------------------------------

function responsesOutput(r: Reply) {
  const output: Record<string, unknown>[] = [];
  if (r.textChunks.length) {
    output.push({
      id: "msg_scripted",
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: fullText(r), annotations: [], logprobs: [] }],
    });
  }
  r.toolCalls.forEach((c, i) =>
    output.push({
      id: `fc_scripted_${i}`,
      type: "function_call",
      status: "completed",
      call_id: c.id,
      name: c.name,
      arguments: fullArgs(c),
    }),
  );
  return output;
}

function responseObject(r: Reply, done: boolean) {
  const truncated = r.stopReason === "max_tokens";
  return {
    id: "resp_scripted",
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: done ? (truncated ? "incomplete" : "completed") : "in_progress",
    model: r.model,
    output: done ? responsesOutput(r) : [],
    error: null,
    incomplete_details: done && truncated ? { reason: "max_output_tokens" } : null,
    instructions: null,
    metadata: {},
    parallel_tool_calls: true,
    temperature: null,
    tool_choice: "auto",
    tools: [],
    top_p: null,
    usage: done
      ? {
          input_tokens: r.usage.input,
          input_tokens_details: { cached_tokens: r.usage.cacheRead },
          output_tokens: r.usage.output,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: r.usage.input + r.usage.output,
        }
      : null,
  };
}

function responsesStream(r: Reply): SseFrame[] {
  const frames: SseFrame[] = [];
  let seq = 0;
  const ev = (type: string, body: Record<string, unknown>) =>
    frames.push({ event: type, data: JSON.stringify({ type, sequence_number: seq++, ...body }) });
  ev("response.created", { response: responseObject(r, false) });
  ev("response.in_progress", { response: responseObject(r, false) });
  const done = responsesOutput(r);
  let outputIndex = 0;
  if (r.textChunks.length) {
    const item_id = "msg_scripted";
    const output_index = outputIndex++;
    ev("response.output_item.added", {
      output_index,
      item: { id: item_id, type: "message", status: "in_progress", role: "assistant", content: [] },
    });
    ev("response.content_part.added", {
      item_id,
      output_index,
      content_index: 0,
      part: { type: "output_text", text: "", annotations: [], logprobs: [] },
    });
    for (const delta of r.textChunks)
      ev("response.output_text.delta", { item_id, output_index, content_index: 0, delta, logprobs: [] });
    ev("response.output_text.done", { item_id, output_index, content_index: 0, text: fullText(r), logprobs: [] });
    ev("response.content_part.done", {
      item_id,
      output_index,
      content_index: 0,
      part: { type: "output_text", text: fullText(r), annotations: [], logprobs: [] },
    });
    ev("response.output_item.done", { output_index, item: done[output_index] });
  }
  r.toolCalls.forEach((c, i) => {
    const item_id = `fc_scripted_${i}`;
    const output_index = outputIndex++;
    ev("response.output_item.added", {
      output_index,
      item: { id: item_id, type: "function_call", status: "in_progress", call_id: c.id, name: c.name, arguments: "" },
    });
    for (const delta of c.argumentChunks)
      ev("response.function_call_arguments.delta", { item_id, output_index, delta });
    ev("response.function_call_arguments.done", { item_id, output_index, name: c.name, arguments: fullArgs(c) });
    ev("response.output_item.done", { output_index, item: done[output_index] });
  });
  const final = responseObject(r, true);
  ev(final.status === "incomplete" ? "response.incomplete" : "response.completed", { response: final });
  return frames;
}

// ---- Chat Completions -----------------------------------------------------------------------------

const FINISH = { end_turn: "stop", tool_use: "tool_calls", max_tokens: "length" } as const;

function chatUsage(r: Reply) {
  return {
    prompt_tokens: r.usage.input,
    completion_tokens: r.usage.output,
    total_tokens: r.usage.input + r.usage.output,
    prompt_tokens_details: { cached_tokens: r.usage.cacheRead },
  };
}

function chatCompletion(r: Reply) {
  const message: Record<string, unknown> = {
    role: "assistant",
    content: r.textChunks.length ? fullText(r) : null,
    refusal: null,
  };
  if (r.toolCalls.length) {
    message.tool_calls = r.toolCalls.map((c) => ({
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: fullArgs(c) },
    }));
  }
  return {
    id: "chatcmpl-scripted",
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: r.model,
    choices: [{ index: 0, message, finish_reason: FINISH[r.stopReason], logprobs: null }],
    usage: chatUsage(r),
  };
}

function chatStream(r: Reply): SseFrame[] {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Record<string, unknown>, finish_reason: string | null = null) => ({
    data: JSON.stringify({
      id: "chatcmpl-scripted",
      object: "chat.completion.chunk",
      created,
      model: r.model,
      choices: [{ index: 0, delta, finish_reason, logprobs: null }],
    }),
  });
  const frames: SseFrame[] = [chunk({ role: "assistant", content: "" })];
  for (const content of r.textChunks) frames.push(chunk({ content }));
  r.toolCalls.forEach((c, index) => {
    frames.push(
      chunk({ tool_calls: [{ index, id: c.id, type: "function", function: { name: c.name, arguments: "" } }] }),
    );
    for (const args of c.argumentChunks) frames.push(chunk({ tool_calls: [{ index, function: { arguments: args } }] }));
  });
  frames.push(chunk({}, FINISH[r.stopReason]));
  if (r.chatUsageChunk) {
    frames.push({
      data: JSON.stringify({
        id: "chatcmpl-scripted",
        object: "chat.completion.chunk",
        created,
        model: r.model,
        choices: [],
        usage: chatUsage(r),
      }),
    });
  }
  frames.push({ data: "[DONE]" });
  return frames;
}

// ---- errors ---------------------------------------------------------------------------------------

function anthropicErrorType(status: number): string {
  if (status === 429) return "rate_limit_error";
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 529) return "overloaded_error";
  if (status >= 500) return "api_error";
  return "invalid_request_error";
}

function openaiErrorType(status: number): string {
  if (status === 429) return "rate_limit_error";
  if (status === 401) return "invalid_authentication";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}
