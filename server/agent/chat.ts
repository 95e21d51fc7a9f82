/**
 * One chat turn with the agent (Ask, room chat): the loop (./loop.ts) without a contract. It answers in
 * text, continues after max_tokens, and is forced to answer after a limit, so a turn never ends silently
 * unless it failed. Pass the returned `messages` as `history` for the next turn.
 */
import { type Budget, createBudget } from "../llm/index.ts";
import type { LlmClient, Message, Usage } from "../llm/index.ts";
import type { AgentStopReason, EventSink } from "./events.ts";
import { runLoop } from "./loop.ts";
import type { ProviderFailure } from "./loop/stop.ts";
import type { RunToolCall } from "./tool-runner.ts";
import type { ReviewTool } from "./tools/types.ts";

/** What a run of the agent spent and how it ended. */
export interface AgentRunSummary {
  stopReason: AgentStopReason;
  iterations: number;
  usage: Usage;
  costUsd: number | undefined;
  notes: string[];
}

export interface ChatWithAgentOptions {
  llm: LlmClient;
  system: string;
  /** Earlier turns of this chat (as returned in `messages` last time). */
  history?: Message[];
  question: string;
  tools: readonly ReviewTool[];
  budget?: { maxTokens?: number; maxCostUsd?: number } | Budget;
  maxIterations?: number;
  signal?: AbortSignal;
  onEvent?: EventSink;
  runToolCall?: RunToolCall;
}

export interface ChatWithAgentResult extends AgentRunSummary {
  answer: string;
  /** The whole conversation including this turn, to pass as `history` next time. */
  messages: Message[];
  error?: string;
  /** The failed request's kind and status, when a provider error ended the turn. */
  providerError?: ProviderFailure;
}

/** One chat turn: the same loop without the REPORT contract; never ends without an answer unless it failed. */
export async function chatWithAgent(o: ChatWithAgentOptions): Promise<ChatWithAgentResult> {
  const budget = o.budget === undefined ? undefined : "charge" in o.budget ? o.budget : createBudget(o.budget);
  const out = await runLoop<never>({
    llm: o.llm,
    system: o.system,
    firstMessage: o.question,
    tools: o.tools,
    ...(o.history ? { history: structuredClone(o.history) } : {}),
    ...(budget ? { budget } : {}),
    ...(o.maxIterations ? { maxIterations: o.maxIterations } : {}),
    signal: o.signal,
    ...(o.onEvent ? { onEvent: o.onEvent } : {}),
    ...(o.runToolCall ? { runToolCall: o.runToolCall } : {}),
  });
  return {
    answer: out.answer ?? "",
    messages: out.messages,
    stopReason: out.stopReason,
    iterations: out.iterations,
    usage: out.usage,
    costUsd: out.costUsd,
    notes: out.notes,
    ...(out.error ? { error: out.error } : {}),
    ...(out.providerError ? { providerError: out.providerError } : {}),
  };
}
