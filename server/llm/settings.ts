/**
 * The bridge from configuration to a client. server/config.ts owns process.env: it spreads
 * `llmEnvShape` into its schema and passes the parsed values to `llmSettingsFromEnv`; the app then
 * calls `createLlmClientFromSettings(config.llm)`. Keeping the variable list here keeps names,
 * types and defaults next to the code that uses them.
 */
import { z } from "zod";
import { type LlmClient, type LlmClientOptions, createLlmClient } from "./client.ts";
import { PROVIDERS, type ProviderId, type ReasoningEffort, REASONING_EFFORTS } from "./types.ts";

const url = z.url({ error: "an absolute URL such as http://localhost:11434/v1" });
const positiveInt = z.coerce.number({ error: "a whole number" }).int("a whole number").positive("a positive number");

export const llmEnvShape = {
  /** anthropic = Messages API, openai = Responses API, openai-compatible = Chat Completions at OPENAI_COMPATIBLE_BASE_URL. */
  LLM_PROVIDER: z.enum(PROVIDERS).default("anthropic"),
  /** Default: the provider's default model from the catalog (required for openai-compatible). */
  LLM_MODEL: z.string().min(1).optional(),
  LLM_TEMPERATURE: z.coerce
    .number({ error: "a number" })
    .min(0, "between 0 and 2")
    .max(2, "between 0 and 2")
    .default(0),
  LLM_MAX_TOKENS: positiveInt.default(16384),
  LLM_REASONING_EFFORT: z.enum(REASONING_EFFORTS).optional(),
  LLM_REQUEST_TIMEOUT_MS: positiveInt.default(120_000),
  LLM_IDLE_TIMEOUT_MS: positiveInt.default(300_000),
  LLM_MAX_RETRIES: z.coerce.number({ error: "a whole number" }).int().min(0).max(10).default(4),
  ANTHROPIC_API_KEY: z.string().min(1).optional(),
  ANTHROPIC_BASE_URL: url.optional(),
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_BASE_URL: url.optional(),
  OPENAI_COMPATIBLE_API_KEY: z.string().min(1).optional(),
  OPENAI_COMPATIBLE_BASE_URL: url.optional(),
  /** native = tools via the API; json = tools described in the prompt, calls parsed from the text. */
  OPENAI_COMPATIBLE_TOOL_MODE: z.enum(["native", "json"]).default("native"),
};

export type LlmEnv = z.infer<z.ZodObject<typeof llmEnvShape>>;

/** Provider connection settings; later also filled from per-workspace stored keys. */
export interface ProviderConnection {
  apiKey?: string;
  baseURL?: string;
}

export interface LlmSettings {
  provider: ProviderId;
  model?: string;
  temperature: number;
  maxTokens: number;
  reasoningEffort?: ReasoningEffort;
  requestTimeoutMs: number;
  idleTimeoutMs: number;
  maxRetries: number;
  anthropic: ProviderConnection;
  openai: ProviderConnection;
  openaiCompatible: ProviderConnection & { toolMode: "native" | "json" };
}

export function llmSettingsFromEnv(env: LlmEnv): LlmSettings {
  return {
    provider: env.LLM_PROVIDER,
    model: env.LLM_MODEL,
    temperature: env.LLM_TEMPERATURE,
    maxTokens: env.LLM_MAX_TOKENS,
    reasoningEffort: env.LLM_REASONING_EFFORT,
    requestTimeoutMs: env.LLM_REQUEST_TIMEOUT_MS,
    idleTimeoutMs: env.LLM_IDLE_TIMEOUT_MS,
    maxRetries: env.LLM_MAX_RETRIES,
    anthropic: { apiKey: env.ANTHROPIC_API_KEY, baseURL: env.ANTHROPIC_BASE_URL },
    openai: { apiKey: env.OPENAI_API_KEY, baseURL: env.OPENAI_BASE_URL },
    openaiCompatible: {
      apiKey: env.OPENAI_COMPATIBLE_API_KEY,
      baseURL: env.OPENAI_COMPATIBLE_BASE_URL,
      toolMode: env.OPENAI_COMPATIBLE_TOOL_MODE,
    },
  };
}

/** Client options for the configured provider (or `provider` to pick another configured one). */
export function clientOptionsFromSettings(s: LlmSettings, provider: ProviderId = s.provider): LlmClientOptions {
  const conn = provider === "anthropic" ? s.anthropic : provider === "openai" ? s.openai : s.openaiCompatible;
  const options: LlmClientOptions = {
    provider,
    temperature: s.temperature,
    maxTokens: s.maxTokens,
    requestTimeoutMs: s.requestTimeoutMs,
    idleTimeoutMs: s.idleTimeoutMs,
    maxRetries: s.maxRetries,
  };
  // The configured model belongs to the configured provider; another provider uses its default.
  if (s.model && provider === s.provider) options.model = s.model;
  if (s.reasoningEffort) options.reasoningEffort = s.reasoningEffort;
  if (conn.apiKey) options.apiKey = conn.apiKey;
  if (conn.baseURL) options.baseURL = conn.baseURL;
  if (provider === "openai-compatible") options.toolMode = s.openaiCompatible.toolMode;
  return options;
}

export function createLlmClientFromSettings(s: LlmSettings, provider?: ProviderId): LlmClient {
  return createLlmClient(clientOptionsFromSettings(s, provider));
}
