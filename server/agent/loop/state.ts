/**
 * A run of the loop: the options with their defaults filled in (read-only) and the LoopState the
 * steps update. Every step takes the run, so a new step (steering, a new mode) is one more function
 * over the same object rather than another closure.
 */
import type { ContentBlock, ToolDefinition } from "../../llm/index.ts";
import type { AgentEvent, Phase } from "../events.ts";
import { type RunToolCall, runToolCall as defaultRunToolCall, toolDefinitions } from "../tool-runner.ts";
import type { LoopOptions, LoopState } from "./types.ts";

export const DEFAULT_MAX_ITERATIONS = 100;

type Passed = Pick<
  LoopOptions<unknown>,
  "llm" | "system" | "tools" | "budget" | "signal" | "onEvent" | "maxTokens" | "cacheKey" | "beforeTurn"
>;

export interface LoopRun extends Readonly<Passed> {
  /** Label of the tool-using turns. */
  readonly phase: Phase;
  readonly maxIterations: number;
  readonly maxRepairs: number;
  readonly maxRecoveries: number;
  /** Output tokens kept for the final pass. */
  readonly finalReserve: number;
  /** Budget kept back for later stages. */
  readonly reserve: { readonly tokens: number; readonly usd: number };
  readonly defs: ToolDefinition[];
  readonly runCall: RunToolCall;
  readonly state: LoopState;
}

/** Fills in the defaults and opens the conversation with the first message. */
export function startRun(o: LoopOptions<unknown>): LoopRun {
  const run: LoopRun = {
    llm: o.llm,
    system: o.system,
    tools: o.tools,
    budget: o.budget,
    signal: o.signal,
    onEvent: o.onEvent,
    maxTokens: o.maxTokens,
    cacheKey: o.cacheKey,
    beforeTurn: o.beforeTurn,
    phase: o.phase ?? "exploring",
    maxIterations: o.maxIterations ?? DEFAULT_MAX_ITERATIONS,
    maxRepairs: o.maxRepairs ?? 2,
    maxRecoveries: o.maxTokensRecoveries ?? 2,
    finalReserve: o.finalReserveTokens ?? 4096,
    reserve: { tokens: o.reserve?.tokens ?? 0, usd: o.reserve?.usd ?? 0 },
    defs: toolDefinitions(o.tools),
    runCall: o.runToolCall ?? defaultRunToolCall,
    state: {
      messages: [...(o.history ?? [])],
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      costUsd: 0,
      iterations: 0,
      requests: 0,
      repairs: 0,
      contractError: "",
      recoveries: 0,
      critiqueRounds: 0,
      notes: [],
    },
  };
  pushUser(run.state.messages, [{ type: "text", text: o.firstMessage }]);
  return run;
}

export function emit(run: LoopRun, e: AgentEvent): void {
  try {
    run.onEvent?.(e);
  } catch {
    // A failing listener (e.g. the bus lost its database) must not end the review.
  }
}

export function status(run: LoopRun, phase: Phase, message: string): void {
  emit(run, { type: "status", phase, message, iteration: run.state.iterations });
}

export function note(run: LoopRun, n: string): void {
  if (!run.state.notes.includes(n)) run.state.notes.push(n);
}

/** Adds an instruction (or hint) for the model as user content. */
export function say(run: LoopRun, text: string): void {
  pushUser(run.state.messages, [{ type: "text", text }]);
}

/** Appends user content, merging into a trailing user turn so roles keep alternating. */
export function pushUser(messages: LoopState["messages"], blocks: ContentBlock[]): void {
  const last = messages.at(-1);
  if (last?.role === "user") last.content.push(...blocks);
  else messages.push({ role: "user", content: blocks });
}
