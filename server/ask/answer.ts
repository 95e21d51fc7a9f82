/**
 * Answers one question over one snapshot, without the database — so the web app's conversations
 * (service.ts) and `argus ask` share every step: the chat agent (server/agent chatWithAgent) with the
 * review tools over the snapshot, or, with no model, the best code-search hits; then the answer's
 * citations checked against the snapshot. Failures of the provider come back in words (`error`), not
 * as exceptions, so a thread stays usable.
 */
import {
  chatWithAgent,
  type AgentEvent,
  type AgentStopReason,
  type ProviderFailure,
  Sandbox,
  type StaticInput,
  createReviewTools,
  runToolCall,
  type ToolContext,
} from "../agent/index.ts";
import {
  type Budget,
  createLlmClient,
  type LlmClient,
  type LlmClientOptions,
  type Message,
  type Usage,
} from "../llm/index.ts";
import type { Citation, SearchHit } from "../shared/ask.ts";
import { checkCitations } from "./citations.ts";
import { ASK_SYSTEM_PROMPT } from "./prompt.ts";
import { searchAnswer } from "./search-answer.ts";

/** Tool-using turns an answer may take before it is asked for its final answer. */
export const ASK_MAX_ITERATIONS = 12;

export interface AnswerInput {
  /** The snapshot's src/ directory. */
  root: string;
  symbolsPath?: string;
  staticFindings?: () => Promise<StaticInput[]>;
  searchCode?: ToolContext["searchCode"];
  /** null: no model is configured — answer with search results. */
  llm: LlmClientOptions | null;
  question: string;
  history?: Message[];
  /** Limits for this answer, or a budget shared with other answers running at once (spend.ts). */
  budget?: { maxTokens?: number; maxCostUsd?: number } | Budget;
  maxIterations?: number;
  signal?: AbortSignal;
  onEvent?: (e: AgentEvent) => void;
}

export interface AnswerOutput {
  mode: "model" | "search";
  text: string;
  citations: Citation[];
  hits: SearchHit[];
  usage: Usage;
  costUsd: number | undefined;
  requests: number;
  stopReason: AgentStopReason;
  /** The provider's failure in words (the answer may still hold what was said before it). */
  error?: string;
  notes: string[];
  /** "<provider> / <model>" for a model answer. */
  model: string | null;
}

/**
 * Clients by their options, kept between answers: making one (the provider's SDK) costs a few ms, and a
 * kept client keeps its connection to the provider open. Any change of key, model or URL is another
 * client; the oldest beyond MAX_CLIENTS is let go.
 */
const clients = new Map<string, LlmClient>();
const MAX_CLIENTS = 16;

function clientFor(options: LlmClientOptions): LlmClient {
  const key = JSON.stringify(options);
  let client = clients.get(key);
  if (client) {
    clients.delete(key); // most recently used last
  } else {
    client = createLlmClient(options);
    if (clients.size >= MAX_CLIENTS) clients.delete(clients.keys().next().value!);
  }
  clients.set(key, client);
  return client;
}

const NO_USAGE: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

export async function answerQuestion(input: AnswerInput): Promise<AnswerOutput> {
  const sandbox = new Sandbox(input.root);
  if (!input.llm) {
    const { text, hits } = await searchAnswer(input.question, input.searchCode);
    return {
      mode: "search",
      text,
      hits,
      citations: checkCitations(text, sandbox),
      usage: { ...NO_USAGE },
      costUsd: 0,
      requests: 0,
      stopReason: "end_turn",
      notes: [],
      model: null,
    };
  }
  const tools = createReviewTools(
    {
      root: input.root,
      symbolsPath: input.symbolsPath,
      staticFindings: input.staticFindings ?? (async () => []),
      searchCode: input.searchCode,
    },
    { sandbox },
  );
  try {
    const llm = clientFor(input.llm);
    const out = await chatWithAgent({
      llm,
      system: ASK_SYSTEM_PROMPT,
      question: input.question,
      ...(input.history?.length ? { history: input.history } : {}),
      tools,
      runToolCall,
      ...(input.budget ? { budget: input.budget } : {}),
      maxIterations: input.maxIterations ?? ASK_MAX_ITERATIONS,
      signal: input.signal,
      ...(input.onEvent ? { onEvent: input.onEvent } : {}),
    });
    return {
      mode: "model",
      text: out.answer,
      hits: [],
      citations: checkCitations(out.answer, sandbox),
      usage: out.usage,
      costUsd: out.costUsd,
      requests: out.iterations,
      stopReason: out.stopReason,
      ...(out.error ? { error: explainModelError(out.error, out.providerError) } : {}),
      notes: out.notes,
      model: `${input.llm.provider} / ${llm.model}`,
    };
  } finally {
    tools.close();
  }
}

/**
 * The provider's error with what to do about it, chosen by what the LLM layer classified it as (its
 * kind and HTTP status, server/llm/errors.ts), never by the wording: a provider's message that
 * happens to say "timeout" or "429" is quoted, not taken for one. The message already names provider,
 * model, status and the provider's own words; this puts the next step in front of it.
 */
export function explainModelError(message: string, failure?: ProviderFailure): string {
  switch (failure?.kind) {
    case "auth":
      return `The model provider refused the request (${failure.status ?? "auth"}): check the API key in Settings → Model providers. ${message}`;
    case "rate_limit":
      return `The model provider is rate limiting requests (${failure.status ?? 429}); ask again in a minute. ${message}`;
    case "timeout":
      return `The model did not answer in time; ask again. ${message}`;
    case "server":
      return `The model provider had an error${failure.status ? ` (${failure.status})` : ""}; ask again. ${message}`;
    case "network":
      return `Argus could not reach the model provider; check its address in Settings → Model providers, or ask again. ${message}`;
    default:
      return message;
  }
}
