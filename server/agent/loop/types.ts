/**
 * The loop's shapes: what a caller passes (LoopOptions, Contract), what it gets back (LoopOutcome),
 * and the one mutable state a run carries from step to step (LoopState). loop.ts re-exports the
 * public ones, so callers keep importing from there.
 */
import type { z } from "zod";
import type { Budget, LlmClient, Message, ToolUseBlock, Usage } from "../../llm/index.ts";
import type { ReviewTool } from "../tools/types.ts";
import type { AgentStopReason, EventSink, Phase } from "../events.ts";
import type { RunToolCall } from "../tool-runner.ts";
import type { ProviderFailure } from "./stop.ts";

/** What the final answer must contain, and how to ask for it again. */
export interface Contract<T> {
  tag: string;
  schema: z.ZodType<T>;
  repairMessage: (error: string) => string;
  forcedMessage: (why: string) => string;
  maxTokensNudge: string;
  critique?: { rounds: number; maxIterations: number; message: (valueJson: string) => string };
}

/**
 * What the steering hook may answer besides a list of hints: hints, and `stop` — end the exploration
 * now and answer from what was read so far (a teammate stopped the review; the text says who, and
 * becomes a note of the run).
 */
export interface Steering {
  hints?: string[];
  stop?: string;
}

/**
 * Awaited before each tool-using turn, between iterations: the seam for steering. Texts it returns are
 * added to the conversation as user content before that turn (teammates' hints); a promise that has
 * not settled yet holds the loop there (pause, until resumed); `{ stop }` ends the exploration with a
 * forced final answer. Cancelling the run ends the wait.
 */
export type BeforeTurn = (
  state: Readonly<LoopState>,
  phase: Phase,
) => Promise<string[] | Steering | void> | string[] | Steering | void;

export interface LoopOptions<T> {
  llm: LlmClient;
  system: string;
  firstMessage: string;
  tools: readonly ReviewTool[];
  /** Earlier turns of a chat; the first message is appended after them. */
  history?: Message[];
  contract?: Contract<T>;
  budget?: Budget;
  maxIterations?: number;
  signal?: AbortSignal;
  onEvent?: EventSink;
  /** Seam for running a call (default: the tool's zod validation, errors as text). */
  runToolCall?: RunToolCall;
  /** Repair turns for an unusable tagged answer (default 2). */
  maxRepairs?: number;
  /** max_tokens nudges (review) or continuations (chat) (default 2). */
  maxTokensRecoveries?: number;
  /** Output tokens kept for the final pass when deciding that the budget is nearly spent (default 4096). */
  finalReserveTokens?: number;
  /** Budget kept back for stages after this loop (e.g. verification). */
  reserve?: { tokens?: number; usd?: number };
  /** Per-request output cap (default: the client's). */
  maxTokens?: number;
  cacheKey?: string;
  /** Label of the tool-using turns in events (default "exploring"; the verification pass uses "verifying"). */
  phase?: Phase;
  beforeTurn?: BeforeTurn;
}

export interface LoopOutcome<T> {
  /** The validated tagged answer (contract mode). */
  value?: T;
  /** The final text (chat mode; in contract mode the answer's text as first given, before any repair). */
  answer?: string;
  /** Model requests made. */
  iterations: number;
  usage: Usage;
  /** Undefined while any request had no known price. */
  costUsd: number | undefined;
  notes: string[];
  stopReason: AgentStopReason;
  /** Set when stopReason is error or invalid_report, or when the budget ran out before an answer. */
  error?: string;
  /** Set when the run ended on a failed model request: the LLM layer's kind and status of it. */
  providerError?: ProviderFailure;
  messages: Message[];
}

/** One model request's answer, as the loop uses it (the full assistant turn is in the messages). */
export interface Turn {
  text: string;
  calls: ToolUseBlock[];
  stopReason: "end_turn" | "tool_use" | "max_tokens";
}

/** How a run of tool-using turns ended. */
export type ExploreEnd = "end_turn" | "max_tokens" | "max_iterations" | "budget_exhausted" | "stopped";

/** Everything a run changes as it goes; the steps read and update it, nothing else is mutable. */
export interface LoopState {
  /** The conversation: the caller's history (copied), the first message, every turn since. */
  messages: Message[];
  /** Totals over every request of this run. */
  usage: Usage;
  /** Undefined once any request had no known price. */
  costUsd: number | undefined;
  /** Model turns (a request the budget refused before sending it does not count). */
  iterations: number;
  /** Requests that reported usage. */
  requests: number;
  /** Repair turns spent, over the answer and every critique round together. */
  repairs: number;
  /** Why the last tagged answer could not be used. */
  contractError: string;
  /** max_tokens nudges (contract) or continuations (chat) spent. */
  recoveries: number;
  /** Self-critique rounds started. */
  critiqueRounds: number;
  /** The last turn that completed. */
  lastTurn?: Turn;
  /** Set when the exploration ends (and again when the run finishes). */
  stopReason?: AgentStopReason;
  /** What happened along the way that the report should mention; each note once. */
  notes: string[];
}
