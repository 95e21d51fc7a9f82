/**
 * Tool calling for models without native tool support: the tools are described in the system prompt,
 * the model answers with <tool_call>{"name": …, "arguments": {…}}</tool_call> blocks (the Hermes /
 * Qwen convention many local models were trained on), and we parse and validate them against each
 * tool's JSON Schema. A bare JSON object {"name", "arguments"} as the whole answer is accepted too.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Message, ToolDefinition, ToolUseBlock } from "./types.ts";

const OPEN = "<tool_call>";
const CLOSE = "</tool_call>";

export function jsonToolInstructions(tools: ToolDefinition[]): string {
  const list = tools
    .map((t) => `- ${t.name}: ${t.description}\n  arguments JSON Schema: ${JSON.stringify(t.inputSchema)}`)
    .join("\n");
  return [
    "# Tools",
    "You can call these tools:",
    list,
    "",
    "To call a tool, answer with one block per call, exactly in this form, and write nothing after the blocks:",
    `${OPEN}\n{"name": "<tool name>", "arguments": {<arguments matching the schema>}}\n${CLOSE}`,
    "The results come back in <tool_result> blocks. When you have the final answer, reply in plain text without any tool_call block.",
  ].join("\n");
}

/** The history as plain text turns: tool calls in the same tag form the model is asked to produce. */
export function renderJsonToolHistory(messages: Message[]): Array<{ role: "user" | "assistant"; content: string }> {
  const names = new Map<string, string>();
  return messages.map((m) => ({
    role: m.role,
    content: m.content
      .filter((b) => b.type !== "reasoning") // not replayable to another API
      .map((b) => {
        if (b.type === "text") return b.text;
        if (b.type === "tool_use") {
          names.set(b.id, b.name);
          return `${OPEN}\n${JSON.stringify({ name: b.name, arguments: b.input })}\n${CLOSE}`;
        }
        if (b.type === "tool_result") {
          const body =
            typeof b.content === "string"
              ? b.content
              : b.content.map((c) => (c.type === "text" ? c.text : "[image omitted]")).join("");
          const status = b.isError ? ' status="error"' : "";
          return `<tool_result name="${names.get(b.toolUseId) ?? "unknown"}"${status}>\n${body}\n</tool_result>`;
        }
        return "[image omitted: this model takes text only]";
      })
      .join("\n"),
  }));
}

export interface ParsedToolCalls {
  /** The answer with the tool-call blocks removed. */
  text: string;
  calls: ToolUseBlock[];
  /** One sentence per rejected call; non-empty means the answer must not be used as is. */
  errors: string[];
}

export function parseTextToolCalls(raw: string, tools: ToolDefinition[]): ParsedToolCalls {
  const candidates: Array<{ json: string }> = [];
  let text = "";
  let at = 0;
  while (true) {
    const start = raw.indexOf(OPEN, at);
    if (start < 0) break;
    text += raw.slice(at, start);
    const end = raw.indexOf(CLOSE, start + OPEN.length);
    // A missing closing tag at the very end is common with small models: take the rest as the call.
    candidates.push({ json: stripFence(raw.slice(start + OPEN.length, end < 0 ? raw.length : end)) });
    at = end < 0 ? raw.length : end + CLOSE.length;
  }
  text += raw.slice(at);
  if (candidates.length === 0) {
    const whole = stripFence(raw);
    const obj = tryJson(whole);
    if (
      isCallShape(obj) ||
      (obj && typeof obj === "object" && Array.isArray((obj as { tool_calls?: unknown }).tool_calls))
    ) {
      candidates.push({ json: whole });
      text = "";
    }
  }
  const calls: ToolUseBlock[] = [];
  const errors: string[] = [];
  for (const c of candidates) {
    const value = tryJson(c.json);
    if (value === undefined) {
      errors.push(`a tool call is not valid JSON: ${c.json.slice(0, 200)}`);
      continue;
    }
    const list = Array.isArray(value)
      ? value
      : Array.isArray((value as { tool_calls?: unknown }).tool_calls)
        ? (value as { tool_calls: unknown[] }).tool_calls
        : [value];
    for (const item of list) validateCall(item, tools, calls, errors);
  }
  return { text, calls, errors };
}

function validateCall(item: unknown, tools: ToolDefinition[], calls: ToolUseBlock[], errors: string[]) {
  if (!isCallShape(item)) {
    errors.push(`a tool call needs "name" and "arguments": ${JSON.stringify(item).slice(0, 200)}`);
    return;
  }
  const tool = tools.find((t) => t.name === item.name);
  if (!tool) {
    errors.push(`unknown tool "${item.name}" (available: ${tools.map((t) => t.name).join(", ")})`);
    return;
  }
  let args = item.arguments ?? item.parameters ?? {};
  if (typeof args === "string") args = tryJson(args) ?? args; // some models double-encode
  if (!args || typeof args !== "object" || Array.isArray(args)) {
    errors.push(`arguments of "${item.name}" are not a JSON object`);
    return;
  }
  const result = schemaFor(tool).safeParse(args);
  if (!result.success) {
    errors.push(
      `arguments of "${item.name}" do not match its schema: ${z.prettifyError(result.error).replace(/\n/g, "; ")}`,
    );
    return;
  }
  calls.push({
    type: "tool_use",
    id: `call_${randomUUID().replace(/-/g, "").slice(0, 24)}`,
    name: tool.name,
    input: args as Record<string, unknown>,
  });
}

const schemas = new WeakMap<ToolDefinition, z.ZodType>();
function schemaFor(tool: ToolDefinition): z.ZodType {
  let s = schemas.get(tool);
  if (!s) {
    try {
      s = z.fromJSONSchema(tool.inputSchema as Parameters<typeof z.fromJSONSchema>[0]);
    } catch {
      s = z.record(z.string(), z.unknown()); // a schema zod cannot read: accept any object rather than no tool at all
    }
    schemas.set(tool, s);
  }
  return s;
}

/** {"name", "arguments"}, or Llama-style {"name", "parameters"}. */
function isCallShape(v: unknown): v is { name: string; arguments?: unknown; parameters?: unknown } {
  return (
    !!v &&
    typeof v === "object" &&
    !Array.isArray(v) &&
    typeof (v as { name?: unknown }).name === "string" &&
    ("arguments" in v || "parameters" in v)
  );
}

function stripFence(s: string): string {
  const t = s.trim();
  const m = /^```(?:json)?\s*\n?([\s\S]*?)\n?```$/.exec(t);
  return m ? m[1]!.trim() : t;
}

function tryJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

/**
 * Streams the prose part of a JSON-mode answer as it arrives while holding back anything that may be a
 * tool call: text from the first "<tool_call>" on, a trailing partial "<tool_…", and whole answers
 * that start like JSON (decided at the end).
 */
export class TextToolCallStreamer {
  private buffer = "";
  private emitted = 0;

  push(delta: string): string {
    this.buffer += delta;
    const head = this.buffer.trimStart();
    if (head.startsWith("{") || head.startsWith("```") || head.startsWith("[")) return "";
    if (head.length === 0) return "";
    let safe = this.buffer.indexOf(OPEN);
    if (safe < 0) {
      safe = this.buffer.length;
      for (let k = Math.min(OPEN.length - 1, this.buffer.length); k > 0; k--) {
        if (OPEN.startsWith(this.buffer.slice(-k))) {
          safe = this.buffer.length - k;
          break;
        }
      }
    }
    if (safe <= this.emitted) return "";
    const out = this.buffer.slice(this.emitted, safe);
    this.emitted = safe;
    return out;
  }

  /** The parse of the whole answer and the text not streamed yet. */
  finish(tools: ToolDefinition[]): ParsedToolCalls & { rest: string } {
    const parsed = parseTextToolCalls(this.buffer, tools);
    // What was streamed is always a prefix of the prose (it stops before the first tag).
    const rest = parsed.text.slice(this.emitted);
    return { ...parsed, rest };
  }

  /** Everything received but not streamed yet, tags included. */
  unsent(): string {
    return this.buffer.slice(this.emitted);
  }
}
