/**
 * Converting between the contract's records and MCP messages, both directions, following what
 * UltraRAG's FastMCP servers and client do (spec §2.5):
 *   tool result  ↔ `structuredContent` (the dict) plus the same dict as JSON text content;
 *   prompt result ↔ one `user` text message per rendered string; the pool keeps the messages;
 *   prompt arguments are strings on the wire (MCP), so other values travel as JSON, as FastMCP does.
 */
import type { CallToolResult, GetPromptResult, PromptMessage } from "@modelcontextprotocol/sdk/types.js";
import { McpServerError } from "./errors.ts";

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

function firstText(result: unknown): string | undefined {
  const content = isRecord(result) && Array.isArray(result.content) ? result.content : [];
  const text = content.find(
    (c): c is { type: "text"; text: string } => isRecord(c) && c.type === "text" && typeof c.text === "string",
  );
  return text?.text;
}

/** Text of an error result, for the error message. */
export function errorText(result: unknown): string {
  return firstText(result)?.trim() || "(the server gave no message)";
}

/**
 * A successful tool result → record keyed by output names: `structuredContent` if present, else the
 * first text content parsed as a JSON object (UltraRAG's client does `json.loads(content[0].text)`),
 * else — for a tool with exactly one declared output — the text (or parsed JSON value) under that name.
 */
export function toolResultToRecord(result: unknown, outputs: readonly string[], what: string): Json {
  if (isRecord(result) && isRecord(result.structuredContent)) return result.structuredContent;
  const text = firstText(result);
  if (text === undefined) {
    if (outputs.length === 0) return {};
    throw new McpServerError(
      "bad_result",
      `${what} returned no structured content and no text; expected ${outputs.join(", ")}`,
    );
  }
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // plain text
  }
  if (isRecord(parsed)) return parsed;
  if (outputs.length === 1) return { [outputs[0]!]: parsed };
  if (outputs.length === 0) return {};
  throw new McpServerError(
    "bad_result",
    `${what} returned ${typeof parsed === "string" ? "text" : "JSON"} that is not an object (${text.slice(0, 120)}); expected an object with ${outputs.join(", ")}`,
  );
}

/** Contract args → MCP prompt arguments (strings); non-strings as JSON, like FastMCP's client. */
export function encodePromptArgs(args: Json): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(args)) {
    if (v === undefined) continue;
    out[k] = typeof v === "string" ? v : JSON.stringify(v);
  }
  return out;
}

/**
 * MCP prompt arguments → contract args. A string that is a JSON list or object is decoded (that is how
 * lists arrive); every other string stays a string, since a prompt template wants text.
 */
export function decodePromptArgs(args: Record<string, string> | undefined): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(args ?? {})) {
    out[k] = v;
    if (/^\s*[[{]/.test(v)) {
      try {
        out[k] = JSON.parse(v);
      } catch {
        // a template that starts with a bracket
      }
    }
  }
  return out;
}

/** The messages of a prompt result, stored whole in the pool as UltraRAG stores `result.messages`. */
export const promptMessages = (result: GetPromptResult): PromptMessage[] => result.messages;

/**
 * A PipelineServer's prompt output (one rendered string per item, or ready messages) → MCP messages:
 * strings become `user` text messages; `{role, content}` objects pass through; anything else is sent
 * as its JSON text.
 */
export function toPromptMessages(value: unknown): PromptMessage[] {
  const items = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return items.map((item): PromptMessage => {
    if (typeof item === "string") return { role: "user", content: { type: "text", text: item } };
    if (
      isRecord(item) &&
      (item.role === "user" || item.role === "assistant") &&
      isRecord(item.content) &&
      typeof item.content.type === "string"
    ) {
      return item as unknown as PromptMessage;
    }
    return { role: "user", content: { type: "text", text: JSON.stringify(item) ?? "null" } };
  });
}

/** A PipelineServer's tool output → MCP result: the record as structured content and as JSON text. */
export function toToolResult(record: Json): CallToolResult {
  const structured = isRecord(record) ? record : { result: record };
  return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
}

export function toErrorResult(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}
