/**
 * The neutral history ↔ OpenAI Responses input items, both ways. Responses has no messages with mixed
 * content: one assistant turn [text, tool_use, tool_use] becomes a message item and two function_call
 * items, and a user turn of tool results becomes function_call_output items. Going back, consecutive
 * items of the same side are merged into one message again, so a normal alternating history survives
 * the round trip unchanged.
 */
import type {
  ResponseFunctionCallOutputItemList,
  ResponseInputItem,
  ResponseOutputItem,
} from "openai/resources/responses/responses";
import type { ContentBlock, ImageBlock, Message, TextBlock } from "./types.ts";

/** Responses has no is_error flag on tool output; the model reads this prefix, and we read it back. */
export const TOOL_ERROR_PREFIX = "[tool error] ";

export function toResponsesInput(messages: Message[]): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  for (const m of messages) {
    // User text and images accumulate into one message item until a tool result interrupts them.
    let parts: Array<{ type: "input_text"; text: string } | ReturnType<typeof inputImage>> = [];
    const flush = () => {
      if (parts.length) items.push({ type: "message", role: "user", content: parts });
      parts = [];
    };
    for (const b of m.content) {
      if (m.role === "user") {
        if (b.type === "text") parts.push({ type: "input_text", text: b.text });
        else if (b.type === "image") parts.push(inputImage(b));
        else if (b.type === "tool_result") {
          flush();
          items.push({ type: "function_call_output", call_id: b.toolUseId, output: toolOutput(b.content, b.isError) });
        }
        // tool_use in a user turn is malformed history; dropping it beats a 400 from the API.
      } else if (b.type === "text") {
        items.push({ type: "message", role: "assistant", content: b.text });
      } else if (b.type === "tool_use") {
        // No `id` on purpose: with store=false the API would demand the matching reasoning item.
        items.push({ type: "function_call", call_id: b.id, name: b.name, arguments: JSON.stringify(b.input) });
      }
    }
    flush();
  }
  return items;
}

function toolOutput(
  content: string | Array<TextBlock | ImageBlock>,
  isError?: boolean,
): string | ResponseFunctionCallOutputItemList {
  const prefix = isError ? TOOL_ERROR_PREFIX : "";
  if (typeof content === "string") return prefix + content;
  // Parts stay parts (the API takes input_text / input_image lists), so the shape survives the round trip.
  const list: ResponseFunctionCallOutputItemList = content.map((c) =>
    c.type === "text" ? { type: "input_text" as const, text: c.text } : inputImage(c),
  );
  if (prefix) list.unshift({ type: "input_text", text: prefix });
  return list;
}

function inputImage(b: ImageBlock) {
  const url = b.source.kind === "url" ? b.source.url : `data:${b.source.mediaType};base64,${b.source.data}`;
  return { type: "input_image" as const, image_url: url, detail: "auto" as const };
}

/** Input items (or output items, which share the shapes we use) back to the neutral history. */
export function fromResponsesInput(items: Array<ResponseInputItem | ResponseOutputItem>): Message[] {
  const messages: Message[] = [];
  const push = (role: Message["role"], blocks: ContentBlock[]) => {
    if (blocks.length === 0) return;
    const last = messages.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const item of items) {
    if (item.type === "function_call") {
      push("assistant", [{ type: "tool_use", id: item.call_id, name: item.name, input: parseArgs(item.arguments) }]);
    } else if (item.type === "function_call_output") {
      push("user", [fromToolOutput(item.call_id, item.output)]);
    } else if ((item.type === "message" || item.type === undefined) && "role" in item) {
      if (item.role === "user") push("user", contentBlocks(item.content));
      else if (item.role === "assistant") push("assistant", contentBlocks(item.content));
      // system / developer items live in `instructions` in our requests; nothing to map back.
    }
  }
  return messages;
}

/** The assistant turn from a completed response's output (reasoning items are not replayed). */
export function fromResponsesOutput(output: ResponseOutputItem[]): ContentBlock[] {
  return fromResponsesInput(output).flatMap((m) => m.content);
}

function contentBlocks(content: unknown): ContentBlock[] {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  if (!Array.isArray(content)) return [];
  const blocks: ContentBlock[] = [];
  for (const part of content as Array<{ type: string; text?: string; refusal?: string; image_url?: string | null }>) {
    if ((part.type === "input_text" || part.type === "output_text") && part.text !== undefined)
      blocks.push({ type: "text", text: part.text });
    else if (part.type === "refusal" && part.refusal) blocks.push({ type: "text", text: part.refusal });
    else if (part.type === "input_image" && part.image_url) blocks.push(imageFromUrl(part.image_url));
  }
  return blocks;
}

function fromToolOutput(callId: string, output: string | ResponseFunctionCallOutputItemList): ContentBlock {
  if (typeof output === "string") {
    const isError = output.startsWith(TOOL_ERROR_PREFIX);
    return {
      type: "tool_result",
      toolUseId: callId,
      content: isError ? output.slice(TOOL_ERROR_PREFIX.length) : output,
      ...(isError ? { isError } : {}),
    };
  }
  const parts = contentBlocks(output) as Array<TextBlock | ImageBlock>;
  const first = parts[0];
  const isError = first?.type === "text" && first.text === TOOL_ERROR_PREFIX;
  return {
    type: "tool_result",
    toolUseId: callId,
    content: isError ? parts.slice(1) : parts,
    ...(isError ? { isError } : {}),
  };
}

function imageFromUrl(url: string): ImageBlock {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return m
    ? { type: "image", source: { kind: "base64", mediaType: m[1]!, data: m[2]! } }
    : { type: "image", source: { kind: "url", url } };
}

function parseArgs(json: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(json || "{}");
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {}; // history is ours; a bad entry should not stop the translation of the rest
  }
}
