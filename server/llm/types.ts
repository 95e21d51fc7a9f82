/**
 * The provider-neutral message format and stream events. Every feature that talks to a model speaks
 * only these shapes; the provider adapters translate them to and from each wire format. The zod schemas
 * are the TypeScript types too, so a request can be validated at the edge (tRPC, scripts, tests).
 */
import { z } from "zod";
import { type Usage, usageSchema } from "../shared/usage.ts";

export const PROVIDERS = ["anthropic", "openai", "openai-compatible"] as const;
export const providerSchema = z.enum(PROVIDERS);
/** anthropic = Messages API; openai = Responses API; openai-compatible = Chat Completions at any base URL. */
export type ProviderId = z.infer<typeof providerSchema>;

// ---- content blocks -------------------------------------------------------------------------------

export const textBlockSchema = z.object({ type: z.literal("text"), text: z.string() });

export const imageBlockSchema = z.object({
  type: z.literal("image"),
  source: z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("base64"), mediaType: z.string().min(1), data: z.string() }),
    z.object({ kind: z.literal("url"), url: z.string().min(1) }),
  ]),
});

export const toolUseBlockSchema = z.object({
  type: z.literal("tool_use"),
  /** The provider's call id (Anthropic tool_use id, OpenAI call_id); tool_result refers to it. */
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
});

export const toolResultBlockSchema = z.object({
  type: z.literal("tool_result"),
  toolUseId: z.string().min(1),
  content: z.union([z.string(), z.array(z.union([textBlockSchema, imageBlockSchema]))]),
  isError: z.boolean().optional(),
});

/**
 * A model's reasoning, kept so the turn can be sent back exactly as received: Anthropic rejects a
 * tool loop whose assistant turns lost their thinking blocks (signatures are checked), and current
 * Claude models think by default. Only the adapter of the same provider and model replays it;
 * every other adapter drops it.
 */
export const reasoningBlockSchema = z.object({
  type: z.literal("reasoning"),
  provider: providerSchema,
  model: z.string(),
  /** Readable (often summarized) reasoning; may be empty. */
  text: z.string(),
  /** Anthropic's signature over the thinking text. */
  signature: z.string().optional(),
  /** Anthropic redacted_thinking payload (opaque, encrypted). */
  redactedData: z.string().optional(),
});

export const contentBlockSchema = z.discriminatedUnion("type", [
  textBlockSchema,
  imageBlockSchema,
  toolUseBlockSchema,
  toolResultBlockSchema,
  reasoningBlockSchema,
]);

export const messageSchema = z.object({
  role: z.enum(["user", "assistant"]),
  content: z.array(contentBlockSchema),
});

export type TextBlock = z.infer<typeof textBlockSchema>;
export type ImageBlock = z.infer<typeof imageBlockSchema>;
export type ToolUseBlock = z.infer<typeof toolUseBlockSchema>;
export type ToolResultBlock = z.infer<typeof toolResultBlockSchema>;
export type ReasoningBlock = z.infer<typeof reasoningBlockSchema>;
export type ContentBlock = z.infer<typeof contentBlockSchema>;
export type Message = z.infer<typeof messageSchema>;

// ---- request --------------------------------------------------------------------------------------

export const toolDefinitionSchema = z.object({
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "letters, digits, _ and -, at most 64 characters"),
  description: z.string(),
  /** JSON Schema of the input object (z.toJSONSchema(schema) from a zod schema works). */
  inputSchema: z.record(z.string(), z.unknown()),
});
export type ToolDefinition = z.infer<typeof toolDefinitionSchema>;

export const toolChoiceSchema = z.union([z.enum(["auto", "none", "required"]), z.object({ name: z.string().min(1) })]);
export type ToolChoice = z.infer<typeof toolChoiceSchema>;

/** Neutral reasoning effort; each model maps it to the nearest level it supports (catalog.ts). */
export const REASONING_EFFORTS = ["none", "minimal", "low", "medium", "high"] as const;
export const reasoningEffortSchema = z.enum(REASONING_EFFORTS);
export type ReasoningEffort = z.infer<typeof reasoningEffortSchema>;

export const streamRequestSchema = z.object({
  system: z.string().optional(),
  messages: z.array(messageSchema).min(1),
  tools: z.array(toolDefinitionSchema).optional(),
  toolChoice: toolChoiceSchema.optional(),
  maxTokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  reasoningEffort: reasoningEffortSchema.optional(),
  /** Groups requests sharing a prefix (OpenAI prompt_cache_key), e.g. a job id. */
  cacheKey: z.string().optional(),
  /** Per-request cost ceiling in US dollars (needs catalog prices for the model). */
  maxCostUsd: z.number().positive().optional(),
  // The three fields below serve OpenAI-compatible servers only (others ignore them): pipelines
  // reproduce UltraRAG's requests byte for byte (sampling_params, extra_params, non-streamed calls).
  /** Nucleus sampling (`top_p`); left out when unset. */
  topP: z.number().min(0).max(1).optional(),
  /** Extra top-level body fields (e.g. vLLM's `chat_template_kwargs`); never replace model, messages, stream or tools. */
  extraBody: z.record(z.string(), z.unknown()).optional(),
  /** false: one JSON answer instead of an SSE stream; it still arrives as text_delta + stop events. */
  wireStreaming: z.boolean().optional(),
});
export type StreamRequestData = z.infer<typeof streamRequestSchema>;

// ---- stream events --------------------------------------------------------------------------------

// Shared with the browser (review events carry usage), so it lives in server/shared.
export { usageSchema, type Usage } from "../shared/usage.ts";

export const STOP_REASONS = ["end_turn", "tool_use", "max_tokens", "error"] as const;
export type StopReason = (typeof STOP_REASONS)[number];

export const ERROR_KINDS = [
  "rate_limit", // 429
  "server", // 5xx, overloaded, an error event mid-stream
  "network", // connection refused/reset, stream cut before it finished
  "timeout", // no response headers in time, or no data for idleTimeoutMs
  "aborted", // the caller's AbortSignal fired
  "auth", // 401 / 403
  "bad_request", // other 4xx
  "invalid_response", // the provider sent something we cannot use (bad tool JSON, refusal, failed response)
  "budget_exceeded", // the token or cost budget would be exceeded
] as const;
export const errorKindSchema = z.enum(ERROR_KINDS);
export type LlmErrorKind = z.infer<typeof errorKindSchema>;

export const errorInfoSchema = z.object({
  kind: errorKindSchema,
  /** Names provider, model and status, then the provider's own message verbatim. */
  message: z.string(),
  provider: providerSchema,
  model: z.string(),
  status: z.number().int().optional(),
  retryable: z.boolean(),
  attempts: z.number().int().positive(),
});
export type LlmErrorInfo = z.infer<typeof errorInfoSchema>;

export const streamEventSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text_delta"), text: z.string() }),
  z.object({
    type: z.literal("tool_use"),
    id: z.string(),
    name: z.string(),
    input: z.record(z.string(), z.unknown()),
  }),
  /** A finished reasoning block (thinking is not streamed token by token). */
  z.object({ type: z.literal("reasoning"), block: reasoningBlockSchema }),
  z.object({
    type: z.literal("usage"),
    usage: usageSchema,
    costUsd: z.number().optional(),
    /** True when the provider reported no usage (some local servers) and ~4 characters a token was assumed. */
    estimated: z.boolean().optional(),
  }),
  z.object({
    type: z.literal("stop"),
    reason: z.enum(STOP_REASONS),
    /** The assistant turn as content blocks, ready to append to the history (partial on error). */
    content: z.array(contentBlockSchema),
    error: errorInfoSchema.optional(),
  }),
]);
export type StreamEvent = z.infer<typeof streamEventSchema>;
export type StopEvent = Extract<StreamEvent, { type: "stop" }>;

/** What a provider adapter yields; the client adds content to stop and handles errors and usage. */
export type ProviderEvent =
  | Extract<StreamEvent, { type: "text_delta" | "tool_use" | "reasoning" }>
  | { type: "usage"; usage: Partial<Usage> }
  | { type: "stop"; reason: Exclude<StopReason, "error"> };

// ---- helpers --------------------------------------------------------------------------------------

export const userText = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
