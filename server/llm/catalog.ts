/**
 * Static catalog of providers and models: limits, prices and capabilities. The client uses it to clamp
 * max tokens, decide whether temperature / reasoning effort may be sent, and price usage for budgets.
 * Prices are US dollars per million tokens as published by each provider (checked against their
 * pricing pages; update here when they change). Models not listed still work: they get a
 * conservative profile and no price, so only token budgets apply to them.
 */
import type { ProviderId, ReasoningEffort, Usage } from "./types.ts";

export interface Pricing {
  inputPerMTok: number;
  outputPerMTok: number;
  cacheReadPerMTok: number;
  /** Anthropic bills 5-minute cache writes at 1.25× input; OpenAI caching writes cost nothing extra. */
  cacheWritePerMTok: number;
  /** Some models bill a whole request at higher rates once its prompt passes a threshold. */
  longPrompt?: { thresholdTokens: number; inputMultiplier: number; outputMultiplier: number };
}

export interface Capabilities {
  tools: boolean;
  reasoning: boolean;
  caching: boolean;
  images: boolean;
  /** Reasoning models reject temperature (Claude 5: any non-default value is a 400); sent only when true. */
  temperature: boolean;
  /** tool_choice "required" / a named tool. Claude Sonnet 5.5 rejects forced tool use; it is sent as "auto". */
  forcedToolChoice: boolean;
}

export interface ModelInfo {
  provider: ProviderId;
  id: string;
  label: string;
  contextWindow: number | undefined;
  maxOutputTokens: number | undefined;
  pricing: Pricing | undefined;
  capabilities: Capabilities;
  /** The provider's own effort values this model accepts, lowest first; empty = never send one. */
  reasoningEfforts: readonly string[];
  /** False when the model is not in the catalog and the profile is a guess. */
  known: boolean;
}

export interface ProviderInfo {
  id: ProviderId;
  label: string;
  defaultBaseURL: string | undefined;
  defaultModel: string | undefined;
  /** Configuration keys the operator sets (documentation only; this module never reads the environment). */
  env: { apiKey: string; baseURL: string };
}

export const PROVIDER_INFO: Record<ProviderId, ProviderInfo> = {
  anthropic: {
    id: "anthropic",
    label: "Anthropic",
    defaultBaseURL: "https://api.anthropic.com",
    defaultModel: "claude-sonnet-5-5",
    env: { apiKey: "ANTHROPIC_API_KEY", baseURL: "ANTHROPIC_BASE_URL" },
  },
  openai: {
    id: "openai",
    label: "OpenAI",
    defaultBaseURL: "https://api.openai.com/v1",
    defaultModel: "gpt-5.4",
    env: { apiKey: "OPENAI_API_KEY", baseURL: "OPENAI_BASE_URL" },
  },
  "openai-compatible": {
    id: "openai-compatible",
    label: "OpenAI-compatible (Chat Completions)",
    defaultBaseURL: undefined,
    defaultModel: undefined,
    env: { apiKey: "OPENAI_COMPATIBLE_API_KEY", baseURL: "OPENAI_COMPATIBLE_BASE_URL" },
  },
};

/** Usual base URLs of OpenAI-compatible servers, for forms and docs. */
export const COMPATIBLE_PRESETS = [
  { id: "ollama", label: "Ollama", baseURL: "http://localhost:11434/v1", needsKey: false },
  { id: "vllm", label: "vLLM", baseURL: "http://localhost:8000/v1", needsKey: false },
  { id: "llama.cpp", label: "llama.cpp server", baseURL: "http://localhost:8080/v1", needsKey: false },
  { id: "lmstudio", label: "LM Studio", baseURL: "http://localhost:1234/v1", needsKey: false },
  { id: "openrouter", label: "OpenRouter", baseURL: "https://openrouter.ai/api/v1", needsKey: true },
] as const;

const ALL_CAPS: Capabilities = {
  tools: true,
  reasoning: true,
  caching: true,
  images: true,
  temperature: false,
  forcedToolChoice: true,
};
const EFFORTS_CLAUDE = ["low", "medium", "high"];
const EFFORTS_GPT = ["none", "low", "medium", "high", "xhigh"];

/** Anthropic's standard cache rates: reads 0.1× input, 5-minute writes 1.25× input. */
const claudePrice = (input: number, output: number, cacheRead = input * 0.1): Pricing =>
  price(input, output, cacheRead, input * 1.25);

const claude = (
  id: string,
  label: string,
  ctx: number,
  maxOut: number,
  p: Pricing,
  caps: Partial<Capabilities> = {},
  efforts = EFFORTS_CLAUDE,
) => model("anthropic", id, label, ctx, maxOut, p, { ...ALL_CAPS, ...caps }, efforts);

const gpt = (
  id: string,
  label: string,
  ctx: number | undefined,
  maxOut: number | undefined,
  p: Pricing,
  caps: Partial<Capabilities> = {},
  efforts = EFFORTS_GPT,
) => model("openai", id, label, ctx, maxOut, p, { ...ALL_CAPS, ...caps }, efforts);

/**
 * Sources: platform.claude.com model overviews and pricing page; OpenAI model pages and pricing as
 * reported for GPT-5.4 (March 2026) and the GPT-5.6 preview (June 2026). Figures not published are
 * undefined (context of GPT-5.6) or follow the provider's standard multipliers (Claude cache rates).
 */
export const MODELS: readonly ModelInfo[] = [
  // Sonnet 5.5 cache reads were cut from $0.20 to $0.10 on 2026-10-07.
  claude("claude-sonnet-5-5", "Claude Sonnet 5.5", 1_000_000, 128_000, claudePrice(2, 10, 0.1), {
    forcedToolChoice: false,
  }),
  claude("claude-opus-5-5", "Claude Opus 5.5", 1_000_000, 128_000, claudePrice(4, 20)),
  claude("claude-haiku-5-5", "Claude Haiku 5.5", 1_000_000, 128_000, {
    ...claudePrice(0.1, 0.5),
    longPrompt: { thresholdTokens: 100_000, inputMultiplier: 5, outputMultiplier: 5 },
  }),
  claude("claude-fable-5-1", "Claude Fable 5.1", 1_000_000, 128_000, claudePrice(10, 50, 0.25)),
  claude("claude-sonnet-5", "Claude Sonnet 5", 1_000_000, 128_000, claudePrice(2, 10)),
  claude("claude-opus-5", "Claude Opus 5", 1_000_000, 128_000, claudePrice(5, 25)),
  // Extended (manual) thinking only: no effort parameter, and it still takes a temperature.
  claude("claude-haiku-4-5", "Claude Haiku 4.5", 200_000, 64_000, claudePrice(1, 5), { temperature: true }, []),
  gpt("gpt-5.6-sol", "GPT-5.6 Sol", undefined, undefined, price(5, 30, 0.5), {}, [...EFFORTS_GPT, "max"]),
  gpt("gpt-5.6-terra", "GPT-5.6 Terra", undefined, undefined, price(2.5, 15, 0.25)),
  gpt("gpt-5.6-luna", "GPT-5.6 Luna", undefined, undefined, price(1, 6, 0.1)),
  gpt("gpt-5.4", "GPT-5.4", 1_050_000, 128_000, {
    ...price(2.5, 15, 0.25),
    longPrompt: { thresholdTokens: 272_000, inputMultiplier: 2, outputMultiplier: 1.5 },
  }),
  gpt("gpt-5.4-mini", "GPT-5.4 mini", undefined, 128_000, price(0.75, 4.5, 0.075)),
  gpt("gpt-4.1", "GPT-4.1", 1_047_576, 32_768, price(2, 8, 0.5), { reasoning: false, temperature: true }, []),
];

/** The catalog entry, or a conservative guess for a model the catalog does not know. */
export function modelInfo(provider: ProviderId, id: string): ModelInfo {
  const exact = MODELS.find((m) => m.provider === provider && m.id === id);
  if (exact) return exact;
  // Dated snapshots ("claude-haiku-4-5-20251001", "gpt-4.1-2025-04-14") share their family's entry.
  const family = MODELS.find(
    (m) =>
      m.provider === provider && id.startsWith(`${m.id}-`) && /^\d{4}-?\d{2}-?\d{2}$/.test(id.slice(m.id.length + 1)),
  );
  if (family) return { ...family, id };
  return guess(provider, id);
}

function guess(provider: ProviderId, id: string): ModelInfo {
  // OpenAI's reasoning families reject temperature; so do Claude 5 models (and SDK 1.x dropped the field).
  const openaiReasoning = provider === "openai" && /^(o\d|gpt-[5-9])/.test(id);
  const caps: Capabilities = {
    tools: true,
    reasoning: openaiReasoning || provider === "anthropic",
    caching: provider !== "openai-compatible",
    images: provider !== "openai-compatible",
    temperature: provider === "openai-compatible" || (provider === "openai" && !openaiReasoning),
    forcedToolChoice: true,
  };
  const efforts = openaiReasoning ? ["low", "medium", "high"] : [];
  return {
    provider,
    id,
    label: id,
    contextWindow: undefined,
    maxOutputTokens: undefined,
    pricing: undefined,
    capabilities: caps,
    reasoningEfforts: efforts,
    known: false,
  };
}

export function modelsFor(provider: ProviderId): ModelInfo[] {
  return MODELS.filter((m) => m.provider === provider);
}

const EFFORT_ORDER = ["none", "minimal", "low", "medium", "high", "xhigh", "max"];

/** The model's own effort value closest to the requested one (ties go to the cheaper), or undefined. */
export function mapReasoningEffort(info: ModelInfo, effort: ReasoningEffort | undefined): string | undefined {
  if (!effort || info.reasoningEfforts.length === 0) return undefined;
  const want = EFFORT_ORDER.indexOf(effort);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const e of info.reasoningEfforts) {
    const d = Math.abs(EFFORT_ORDER.indexOf(e) - want);
    if (
      d < bestDistance ||
      (d === bestDistance && best !== undefined && EFFORT_ORDER.indexOf(e) < EFFORT_ORDER.indexOf(best))
    ) {
      best = e;
      bestDistance = d;
    }
  }
  return best;
}

/** Dollar cost of a usage figure, or undefined when the model has no known price. */
export function costUsd(usage: Usage, pricing: Pricing | undefined): number | undefined {
  if (!pricing) return undefined;
  const long =
    pricing.longPrompt && usage.inputTokens > pricing.longPrompt.thresholdTokens ? pricing.longPrompt : undefined;
  const inMul = long?.inputMultiplier ?? 1;
  const uncached = Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens);
  const dollars =
    (uncached * pricing.inputPerMTok +
      usage.cacheReadTokens * pricing.cacheReadPerMTok +
      usage.cacheWriteTokens * pricing.cacheWritePerMTok) *
      inMul +
    usage.outputTokens * pricing.outputPerMTok * (long?.outputMultiplier ?? 1);
  return dollars / 1_000_000;
}

function price(input: number, output: number, cacheRead: number, cacheWrite = input): Pricing {
  return {
    inputPerMTok: input,
    outputPerMTok: output,
    cacheReadPerMTok: round(cacheRead),
    cacheWritePerMTok: round(cacheWrite),
  };
}

function round(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}

function model(
  provider: ProviderId,
  id: string,
  label: string,
  contextWindow: number | undefined,
  maxOutputTokens: number | undefined,
  pricing: Pricing,
  capabilities: Capabilities,
  reasoningEfforts: string[],
): ModelInfo {
  return { provider, id, label, contextWindow, maxOutputTokens, pricing, capabilities, reasoningEfforts, known: true };
}
