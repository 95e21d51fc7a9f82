/**
 * The script that drives the scripted LLM server: ordered rules, the first one that matches the last
 * user content (and still has uses left) decides the reply. One neutral reply description is encoded
 * into whichever wire format was asked for (wire.ts), so one script serves all three APIs.
 *
 * Example (JSON file for `argus dev scripted-llm --script file.json`):
 *   { "rules": [
 *     { "match": "rate me", "times": 1, "status": 429, "retryAfter": 0 },
 *     { "match": "/list (the )?files/i", "toolCalls": [{ "name": "list_files", "input": { "path": "src" } }] },
 *     { "text": ["Hello", " world"] } ] }
 */
import { z } from "zod";

export const APIS = ["anthropic", "responses", "chat"] as const;
export type Api = (typeof APIS)[number];

const nonNegative = z.number().nonnegative();

export const scriptedToolCallSchema = z.object({
  id: z.string().optional(),
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()).optional(),
  /** Raw argument text used instead of `input`, e.g. to script malformed JSON. */
  arguments: z.string().optional(),
  /** Number of deltas the argument JSON is split into. */
  chunks: z.number().int().positive().default(3),
});

export const ruleSchema = z.object({
  /** Substring of the last user content, or "/regex/flags". Absent: matches everything. */
  match: z.string().optional(),
  api: z.enum(APIS).optional(),
  model: z.string().optional(),
  /** The rule is used this many times, then skipped (for "429 once, then succeed"). */
  times: z.number().int().positive().optional(),

  /** Reply with this HTTP error status instead of an answer. */
  status: z.number().int().min(400).max(599).optional(),
  message: z.string().optional(),
  /** Seconds, sent as the retry-after header with an error status. */
  retryAfter: nonNegative.optional(),

  /** One string is split into word chunks; an array is sent chunk by chunk as given. */
  text: z.union([z.string(), z.array(z.string())]).optional(),
  toolCalls: z.array(scriptedToolCallSchema).optional(),
  /** Anthropic only: a signed thinking block before the answer (other APIs leave it out). */
  thinking: z.string().optional(),
  /** Default: tool_use when there are tool calls, else end_turn. */
  stopReason: z.enum(["end_turn", "tool_use", "max_tokens"]).optional(),
  /** Reported usage; `input` counts all prompt tokens, cached ones included. Default: ~4 characters a token. */
  usage: z
    .object({ input: nonNegative, output: nonNegative, cacheRead: nonNegative, cacheWrite: nonNegative })
    .partial()
    .optional(),

  /** Wait before sending the response headers. */
  delayMs: nonNegative.optional(),
  /** Wait between streamed events. */
  chunkDelayMs: nonNegative.optional(),
  /** Send this many stream events, then drop the connection. */
  cutAfter: z.number().int().nonnegative().optional(),
  /** Send this many stream events, then end the response cleanly, as a proxy closing early would. */
  endAfter: z.number().int().nonnegative().optional(),
  /** Send this many stream events, then go silent with the connection open. */
  stallAfter: z.number().int().nonnegative().optional(),
});
export type Rule = z.infer<typeof ruleSchema>;
export type RuleInput = z.input<typeof ruleSchema>;

export const scriptSchema = z.preprocess(
  (v) => (Array.isArray(v) ? { rules: v } : v),
  z.object({ rules: z.array(ruleSchema) }),
);
export type Script = z.infer<typeof scriptSchema>;
export type ScriptInput = { rules: RuleInput[] } | RuleInput[];

export function parseScript(value: unknown): Script {
  return scriptSchema.parse(value);
}

export function matches(rule: Rule, api: Api, model: string, lastUser: string): boolean {
  if (rule.api && rule.api !== api) return false;
  if (rule.model && rule.model !== model) return false;
  if (rule.match === undefined) return true;
  const re = /^\/(.*)\/([a-z]*)$/s.exec(rule.match);
  return re ? new RegExp(re[1]!, re[2]).test(lastUser) : lastUser.includes(rule.match);
}

type Json = Record<string, unknown>;

/**
 * The text of the caller's latest turn: everything after the last assistant turn (user text and tool
 * results), joined by newlines. That is what a rule's `match` is tested against.
 */
export function lastUserText(api: Api, body: Json): string {
  if (api === "responses") {
    const input = body.input;
    if (typeof input === "string") return input;
    const items = Array.isArray(input) ? (input as Json[]) : [];
    const tail = items.slice(
      lastIndex(items, (i) => i.role === "assistant" || i.type === "function_call" || i.type === "reasoning") + 1,
    );
    return tail
      .map((i) =>
        i.type === "function_call_output" ? partsText(i.output) : i.role === "user" ? partsText(i.content) : "",
      )
      .filter(Boolean)
      .join("\n");
  }
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  const tail = messages.slice(lastIndex(messages, (m) => m.role === "assistant") + 1);
  return tail
    .filter((m) => m.role === "user" || m.role === "tool")
    .map((m) => partsText(m.content))
    .filter(Boolean)
    .join("\n");
}

function lastIndex<T>(list: T[], pred: (t: T) => boolean): number {
  for (let i = list.length - 1; i >= 0; i--) if (pred(list[i]!)) return i;
  return -1;
}

/** Text inside any of the three APIs' content shapes (strings, text parts, tool results). */
function partsText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return (content as Json[])
    .map((p) => {
      if (typeof p.text === "string") return p.text;
      if (p.type === "tool_result") return partsText(p.content);
      return "";
    })
    .filter(Boolean)
    .join("\n");
}
