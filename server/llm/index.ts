/**
 * The LLM module's public surface. Features import from here; adapters and wire details stay inside.
 */
export * from "./types.ts";
export {
  type Completion,
  type LlmClient,
  type LlmClientOptions,
  type StreamRequest,
  clientOptionsSchema,
  createLlmClient,
} from "./client.ts";
export {
  type LlmEnv,
  type LlmSettings,
  clientOptionsFromSettings,
  createLlmClientFromSettings,
  llmEnvShape,
  llmSettingsFromEnv,
} from "./settings.ts";
export {
  COMPATIBLE_PRESETS,
  MODELS,
  PROVIDER_INFO,
  type ModelInfo,
  type Pricing,
  costUsd,
  modelInfo,
  modelsFor,
} from "./catalog.ts";
export {
  Budget,
  type BudgetHold,
  type BudgetLimits,
  type Reservation,
  type ReserveRequest,
  createBudget,
  estimateInputTokens,
  fitToBudget,
  holdUsd,
} from "./budget.ts";
export { type RetryPolicy } from "./retry.ts";
export {
  createEmbeddingsEndpoint,
  type EmbeddingsEndpoint,
  type EmbeddingsEndpointOptions,
  type EmbeddingsRequest,
  EmbeddingsRequestError,
} from "./embeddings.ts";
export { LlmError } from "./errors.ts";
export { afterFirstRequest } from "./request-sent.ts";
