/**
 * Running one tool call from the model. Nothing the model sends makes this throw: an unknown tool, a
 * non-JSON or invalid argument object, or a tool that fails unexpectedly all come back as an error
 * result that says what was wrong and what the tool expects, so the model can correct itself on the
 * next turn. Only cancellation (the signal) propagates, so the loop stops promptly.
 */
import { z } from "zod";
import { MAX_TOOL_RESULT_CHARS } from "./limits.ts";
import { clip, fail } from "./format.ts";
import type { ToolDefinition } from "../../llm/index.ts";
import type { ReviewTool, ToolResult } from "./types.ts";
import { formatZodIssues } from "../../shared/zod-issues.ts";

interface JsonSchemaProperty {
  type?: string;
  enum?: unknown[];
  anyOf?: JsonSchemaProperty[];
  items?: JsonSchemaProperty;
  description?: string;
  default?: unknown;
}

function typeName(p: JsonSchemaProperty): string {
  if (p.enum) return p.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (p.anyOf) return p.anyOf.map(typeName).join(" or ");
  if (p.type === "array") return `array of ${p.items ? typeName(p.items) : "values"}`;
  return p.type ?? "value";
}

/** "path (string, required): …" per field, from the tool's JSON Schema. */
export function describeFields(tool: ReviewTool): string {
  const schema = z.toJSONSchema(tool.input, { io: "input", unrepresentable: "any" }) as {
    properties?: Record<string, JsonSchemaProperty>;
    required?: string[];
  };
  const required = new Set(schema.required ?? []);
  const rows = Object.entries(schema.properties ?? {}).map(([name, p]) => {
    const flags = [
      typeName(p),
      required.has(name) ? "required" : "optional",
      p.default !== undefined ? `default ${JSON.stringify(p.default)}` : "",
    ]
      .filter(Boolean)
      .join(", ");
    return `  ${name} (${flags})${p.description ? `: ${p.description}` : ""}`;
  });
  return rows.length ? rows.join("\n") : "  (no arguments)";
}

function parseRaw(raw: unknown): { ok: true; value: unknown } | { ok: false; message: string } {
  if (raw === undefined || raw === null || raw === "") return { ok: true, value: {} };
  if (typeof raw !== "string") return { ok: true, value: raw };
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch (err) {
    return { ok: false, message: `the arguments are not valid JSON (${(err as Error).message})` };
  }
}

export async function runToolCall(
  tools: readonly ReviewTool[],
  name: string,
  rawInput: unknown,
  signal?: AbortSignal,
): Promise<ToolResult> {
  const tool = tools.find((t) => t.name === name);
  if (!tool) {
    return fail(
      `There is no tool named ${JSON.stringify(String(name).slice(0, 100))}. Available tools: ${tools.map((t) => t.name).join(", ")}.`,
    );
  }
  const raw = parseRaw(rawInput);
  if (!raw.ok)
    return fail(
      `Invalid arguments for ${tool.name}: ${raw.message}. Send a JSON object with these fields:\n${describeFields(tool)}`,
    );
  if (typeof raw.value !== "object" || raw.value === null || Array.isArray(raw.value)) {
    return fail(
      `Invalid arguments for ${tool.name}: expected a JSON object, got ${Array.isArray(raw.value) ? "an array" : typeof raw.value}. Fields:\n${describeFields(tool)}`,
    );
  }
  const parsed = tool.input.safeParse(raw.value);
  if (!parsed.success) {
    const problems = formatZodIssues(parsed.error, { prefix: "  ", root: "arguments" });
    return fail(`Invalid arguments for ${tool.name}:\n${problems}\nExpected fields:\n${describeFields(tool)}`);
  }
  try {
    const result = await tool.run(parsed.data, signal);
    return {
      ...result,
      text: clip(
        result.text,
        MAX_TOOL_RESULT_CHARS,
        () => `[Result cut at ${MAX_TOOL_RESULT_CHARS.toLocaleString("en-US")} characters; ask for less.]`,
      ),
    };
  } catch (err) {
    if (signal?.aborted) throw signal.reason ?? err;
    // An unexpected failure is a bug on our side; its message must not show the server's file layout.
    const message = (err instanceof Error ? err.message : String(err)).replace(/(?:\/[\w.@+-]+){2,}/g, "<path>");
    return fail(`${tool.name} failed: ${message.slice(0, 500)}. Try different arguments or another tool.`);
  }
}

/** Each input schema's JSON Schema, made once: the schemas are module constants, shared by every run. */
const jsonSchemas = new WeakMap<object, Record<string, unknown>>();

function inputJsonSchema(schema: ReviewTool["input"]): Record<string, unknown> {
  let made = jsonSchemas.get(schema);
  if (!made) {
    const { $schema: _drop, ...rest } = z.toJSONSchema(schema, {
      io: "input",
      unrepresentable: "any",
    }) as Record<string, unknown>;
    made = rest;
    jsonSchemas.set(schema, made);
  }
  return made;
}

/**
 * The definitions the model sees, from each tool's zod schema (converting them took ~3 ms a run,
 * before a chat answer's first model request: bench/ask.ts). Each run gets its own copy.
 */
export function toolDefinitions(tools: readonly ReviewTool[]): ToolDefinition[] {
  return tools.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: structuredClone(inputJsonSchema(t.input)),
  }));
}
