/**
 * The tool-using agent loop (Argus seed: services/agent/loop.py), shared by reviews, chat turns and
 * the verification pass:
 *
 *   stream a turn → run its tool calls → append the results → repeat, until the model answers without
 *   tools, `maxIterations` turns were spent, or the budget is nearly spent.
 *
 * With a contract (review: `REPORT: {json}`, verification: `VERDICT: {json}`) the final text must carry
 * the tagged JSON: a turn cut off at max_tokens gets a nudge to emit it now; a loop that ran out of
 * iterations or budget gets one forced no-tools pass; an answer that does not parse or validate gets
 * the exact error back for a bounded number of repair turns; then optional self-critique rounds let the
 * model revise, downgrade or merge before the answer is accepted. Chat mode has no contract, and its own
 * forced final answer so a chat never ends silently.
 *
 * Budget: exploration stops while there is still room for the final pass (about twice the current
 * prompt plus `finalReserveTokens`, plus any `reserve` kept for later stages such as verification).
 * Cancellation: the signal aborts the HTTP request and any running tool; the outcome says "cancelled".
 * Nothing a model sends throws out of here; a failed request ends the loop with stopReason "error".
 */
import type { z } from "zod";
import { type Budget, estimateInputTokens } from "../../llm/budget.ts";
import type { LlmClient } from "../../llm/client.ts";
import type {
  ContentBlock,
  LlmErrorInfo,
  Message,
  ReasoningEffort,
  ToolDefinition,
  ToolResultBlock,
  ToolUseBlock,
  Usage,
} from "../../llm/types.ts";
import { type ModelReport, modelReportSchema } from "../report/schema.ts";
import type { ReviewTool } from "../tools/types.ts";
import { extractTagged } from "./contract.ts";
import { type AgentEvent, type AgentStopReason, type EventSink, type Phase, TOOL_PREVIEW_CHARS } from "./events.ts";
import * as P from "./prompts.ts";
import { type RunToolCall, runToolCall as defaultRunToolCall, toolDefinitions } from "./tool-runner.ts";

export const DEFAULT_MAX_ITERATIONS = 100;

/** What the final answer must contain, and how to ask for it again. */
export interface Contract<T> {
  tag: string;
  schema: z.ZodType<T>;
  repairMessage: (error: string) => string;
  forcedMessage: (why: string) => string;
  maxTokensNudge: string;
  critique?: { rounds: number; maxIterations: number; message: (valueJson: string) => string };
}

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
}

export interface LoopOutcome<T> {
  /** The validated tagged answer (contract mode). */
  value?: T;
  /** The final text (chat mode; in contract mode the last answer's text). */
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
  messages: Message[];
}

/** Ends the loop from anywhere inside it (cancel, request failure). */
class Stop extends Error {
  constructor(
    readonly reason: AgentStopReason,
    message: string,
    readonly kind?: string,
  ) {
    super(message);
  }
}

interface Turn {
  text: string;
  calls: ToolUseBlock[];
  stopReason: "end_turn" | "tool_use" | "max_tokens";
}

type ExploreEnd = "end_turn" | "max_tokens" | "max_iterations" | "budget_exhausted";

export async function runLoop<T>(o: LoopOptions<T>): Promise<LoopOutcome<T>> {
  const maxIterations = o.maxIterations ?? DEFAULT_MAX_ITERATIONS;
  const maxRepairs = o.maxRepairs ?? 2;
  const maxRecoveries = o.maxTokensRecoveries ?? 2;
  const finalReserve = o.finalReserveTokens ?? 4096;
  const runCall = o.runToolCall ?? defaultRunToolCall;
  const defs: ToolDefinition[] = toolDefinitions(o.tools);
  const messages: Message[] = [...(o.history ?? [])];
  const notes: string[] = [];
  const usage: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  let cost: number | undefined = 0;
  let iterations = 0;
  let requests = 0;

  const emit = (e: AgentEvent) => {
    try {
      o.onEvent?.(e);
    } catch {
      // A failing listener (e.g. the bus lost its database) must not end the review.
    }
  };
  const status = (phase: Phase, message: string) => emit({ type: "status", phase, message, iteration: iterations });
  const note = (n: string) => {
    if (!notes.includes(n)) notes.push(n);
  };

  pushUser(messages, [{ type: "text", text: o.firstMessage }]);

  /** One model request; appends the assistant turn. Throws Stop on cancel and on a failed request. */
  async function turn(phase: Phase, withTools: boolean): Promise<Turn> {
    if (o.signal?.aborted) throw new Stop("cancelled", "cancelled");
    iterations++;
    const requestsBefore = requests;
    const calls: ToolUseBlock[] = [];
    let text = "";
    let stop: { reason: string; content: ContentBlock[]; error?: LlmErrorInfo } | undefined;
    const forced = phase !== "exploring" && phase !== "critiquing" && phase !== "verifying";
    const stream = o.llm.stream({
      system: o.system,
      messages,
      // Tool definitions stay on every request: Anthropic refuses a history with tool blocks without them.
      ...(defs.length ? { tools: defs, toolChoice: withTools ? ("auto" as const) : ("none" as const) } : {}),
      ...(o.maxTokens ? { maxTokens: o.maxTokens } : {}),
      ...(forced ? { reasoningEffort: "minimal" as ReasoningEffort } : {}),
      ...(o.cacheKey ? { cacheKey: o.cacheKey } : {}),
      signal: o.signal,
      budget: o.budget,
    });
    for await (const ev of stream) {
      if (ev.type === "text_delta") {
        text += ev.text;
        emit({ type: "token", text: ev.text, phase });
      } else if (ev.type === "tool_use") {
        calls.push({ type: "tool_use", id: ev.id, name: ev.name, input: ev.input });
        emit({ type: "tool_call", id: ev.id, name: ev.name, input: ev.input, iteration: iterations });
      } else if (ev.type === "usage") {
        requests++;
        usage.inputTokens += ev.usage.inputTokens;
        usage.outputTokens += ev.usage.outputTokens;
        usage.cacheReadTokens += ev.usage.cacheReadTokens;
        usage.cacheWriteTokens += ev.usage.cacheWriteTokens;
        cost = cost === undefined || ev.costUsd === undefined ? undefined : cost + ev.costUsd;
        emit({ type: "usage", usage: { ...usage }, ...(cost === undefined ? {} : { costUsd: cost }), requests });
      } else if (ev.type === "stop") {
        stop = ev;
      }
    }
    if (!stop) throw new Stop("error", "the model stream ended without a stop event");
    if (stop.reason === "error") {
      const err = stop.error!;
      if (err.kind === "aborted" || o.signal?.aborted) throw new Stop("cancelled", "cancelled");
      if (err.kind === "budget_exceeded") {
        if (requests === requestsBefore) iterations--; // refused before sending: not a model turn
        throw new Stop("budget_exhausted", err.message, err.kind);
      }
      throw new Stop("error", err.message, err.kind);
    }
    messages.push({
      role: "assistant",
      content: hasSendable(stop.content) ? stop.content : [...stop.content, { type: "text", text: "(no answer)" }],
    });
    return { text, calls, stopReason: stop.reason as Turn["stopReason"] };
  }

  /** Runs the turn's tool calls concurrently and appends their results in call order. */
  async function answerCalls(calls: ToolUseBlock[], allowed: boolean): Promise<void> {
    const results = await Promise.all(
      calls.map(async (call): Promise<ToolResultBlock> => {
        const started = performance.now();
        const result = allowed
          ? await abortable(runCall(o.tools, call.name, call.input, o.signal), o.signal)
          : { isError: true, text: "Tools are not available in this step. Answer without calling tools." };
        emit({
          type: "tool_result",
          id: call.id,
          name: call.name,
          isError: result.isError ?? false,
          preview: result.text.slice(0, TOOL_PREVIEW_CHARS),
          chars: result.text.length,
          durationMs: Math.round((performance.now() - started) * 1000) / 1000,
        });
        return {
          type: "tool_result",
          toolUseId: call.id,
          content: result.text,
          ...(result.isError ? { isError: true } : {}),
        };
      }),
    );
    if (o.signal?.aborted) throw new Stop("cancelled", "cancelled");
    pushUser(messages, results);
  }

  /** True when one more exploring turn could leave too little for the final pass. */
  function budgetLow(): boolean {
    const b = o.budget;
    if (!b) return false;
    const prompt = estimateInputTokens(o.system, messages, defs);
    // The next turn reads the prompt once, the final pass reads it again plus that turn's output.
    const needTokens = 2 * prompt + 1024 + finalReserve + (o.reserve?.tokens ?? 0);
    if (b.remainingTokens() < needTokens) return true;
    const price = o.llm.info.pricing;
    if (b.limits.maxCostUsd !== undefined && price) {
      const needUsd =
        (2 * prompt * price.inputPerMTok + (1024 + finalReserve) * price.outputPerMTok) / 1e6 + (o.reserve?.usd ?? 0);
      if (b.remainingUsd() < needUsd) return true;
    }
    return false;
  }

  /** Tool-using turns until the model answers without tools or a limit is reached. */
  async function explore(phase: Phase, limit: number): Promise<{ end: ExploreEnd; last?: Turn }> {
    let spent = 0;
    let last: Turn | undefined;
    for (;;) {
      if (o.signal?.aborted) throw new Stop("cancelled", "cancelled");
      if (spent >= limit) return { end: "max_iterations", last };
      if (budgetLow()) return { end: "budget_exhausted", last };
      try {
        last = await turn(phase, true);
      } catch (e) {
        if (e instanceof Stop && e.reason === "budget_exhausted") return { end: "budget_exhausted", last };
        throw e;
      }
      spent++;
      if (last.calls.length) {
        await answerCalls(last.calls, true);
        continue;
      }
      return { end: last.stopReason === "max_tokens" ? "max_tokens" : "end_turn", last };
    }
  }

  /** A no-tools turn after `instruction` (a nudge, a forced final, a repair). */
  async function noToolsTurn(phase: Phase, instruction: string): Promise<Turn> {
    pushUser(messages, [{ type: "text", text: instruction }]);
    const t = await turn(phase, false);
    if (t.calls.length) await answerCalls(t.calls, false);
    return t;
  }

  /** From the end of an exploration to a text that should hold the tagged answer. */
  async function finalText(c: Contract<T>, end: ExploreEnd, last: Turn | undefined): Promise<string> {
    if (end === "max_iterations" || end === "budget_exhausted") {
      const why = end === "max_iterations" ? P.WHY_ITERATIONS : P.WHY_BUDGET;
      note(
        end === "max_iterations"
          ? "forced final pass (iteration limit reached)"
          : "forced final pass (budget nearly spent)",
      );
      status("forced_final", why);
      return (await noToolsTurn("forced_final", c.forcedMessage(why))).text;
    }
    let t = last!;
    for (let i = 0; t.stopReason === "max_tokens" && i < maxRecoveries; i++) {
      note("max_tokens recovery");
      status("max_tokens_recovery", "the answer was cut off at the output limit; asking for the report now");
      t = await noToolsTurn("max_tokens_recovery", c.maxTokensNudge);
    }
    return t.text;
  }

  /** Extracts the tagged answer, with repair turns; undefined when every attempt failed. */
  let repairsLeft = maxRepairs;
  let lastError = "";
  async function extractWithRepair(c: Contract<T>, text: string): Promise<T | undefined> {
    for (let repaired = false; ; repaired = true) {
      const r = extractTagged(text, c.tag, c.schema);
      if (r.ok) {
        if (repaired) note(`${c.tag.toLowerCase()} repaired`);
        return r.value;
      }
      lastError = r.error;
      if (repairsLeft <= 0) return undefined;
      repairsLeft--;
      status("repairing", `the ${c.tag} could not be used; asking for a corrected one`);
      try {
        text = (await noToolsTurn("repairing", c.repairMessage(r.error))).text;
      } catch (e) {
        if (e instanceof Stop && e.reason === "budget_exhausted") return undefined;
        throw e;
      }
    }
  }

  const outcome = (stopReason: AgentStopReason, extra: Partial<LoopOutcome<T>> = {}): LoopOutcome<T> => {
    const out: LoopOutcome<T> = {
      iterations,
      usage: { ...usage },
      costUsd: cost,
      notes,
      stopReason,
      messages,
      ...extra,
    };
    if (out.error) emit({ type: "error", message: out.error });
    emit({ type: "done", stopReason, iterations, notes: [...notes] });
    return out;
  };

  try {
    const phase = o.phase ?? "exploring";
    status(phase, "started");
    const { end, last } = await explore(phase, maxIterations);
    const stopReason: AgentStopReason = end === "max_iterations" || end === "budget_exhausted" ? end : "end_turn";

    if (!o.contract) return outcome(stopReason, { answer: await chatAnswer(end, last) });

    const c = o.contract;
    let text: string;
    try {
      text = await finalText(c, end, last);
    } catch (e) {
      if (e instanceof Stop && e.reason === "budget_exhausted") {
        return outcome("budget_exhausted", {
          error: `The budget ran out before the model produced its ${c.tag}: ${e.message}`,
        });
      }
      throw e;
    }
    let value = await extractWithRepair(c, text);
    if (value === undefined) {
      return outcome("invalid_report", {
        answer: text,
        error: `No usable ${c.tag} after ${maxRepairs} repair attempt(s): ${lastError}`,
      });
    }

    // Self-critique only after a normal finish: a forced pass has no budget or iterations left for it.
    if (c.critique && stopReason === "end_turn") value = await critique(c, value);
    return outcome(stopReason, { value, answer: text });
  } catch (e) {
    if (e instanceof Stop) {
      if (e.reason === "cancelled") return outcome("cancelled");
      return outcome(e.reason, { error: e.message });
    }
    throw e;
  }

  async function critique(c: Contract<T>, value: T): Promise<T> {
    const { rounds, maxIterations: critiqueTurns, message } = c.critique!;
    for (let round = 0; round < rounds; round++) {
      if (budgetLow()) {
        note("self-critique skipped (budget nearly spent)");
        return value;
      }
      status("critiquing", `self-critique round ${round + 1} of ${rounds}`);
      pushUser(messages, [{ type: "text", text: message(JSON.stringify(value, null, 1)) }]);
      const { end, last } = await explore("critiquing", critiqueTurns);
      let text: string;
      try {
        text = await finalText(c, end, last);
      } catch (e) {
        if (e instanceof Stop && e.reason === "budget_exhausted") {
          note("self-critique stopped (budget spent); kept the earlier report");
          return value;
        }
        throw e;
      }
      const revised = await extractWithRepair(c, text);
      if (revised === undefined) {
        note("self-critique answer unusable; kept the earlier report");
        return value;
      }
      if (JSON.stringify(revised) === JSON.stringify(value)) break;
      note("revised by self-critique");
      value = revised;
    }
    return value;
  }

  async function chatAnswer(end: ExploreEnd, last: Turn | undefined): Promise<string> {
    if (end === "max_iterations" || end === "budget_exhausted") {
      const why =
        end === "max_iterations"
          ? "You have reached the step limit for this answer."
          : "The token/cost budget is nearly spent.";
      note(
        end === "max_iterations"
          ? "forced final answer (iteration limit reached)"
          : "forced final answer (budget nearly spent)",
      );
      status("forced_final", why);
      try {
        return (await noToolsTurn("forced_final", P.chatForcedFinalMessage(why))).text;
      } catch (e) {
        if (e instanceof Stop && e.reason === "budget_exhausted") return last?.text ?? "";
        throw e;
      }
    }
    let t = last!;
    let answer = t.text;
    for (let i = 0; t.stopReason === "max_tokens" && i < maxRecoveries; i++) {
      note("answer continued after the output limit");
      status("max_tokens_recovery", "the answer was cut off at the output limit; continuing");
      try {
        t = await noToolsTurn("max_tokens_recovery", P.CHAT_CONTINUE);
      } catch (e) {
        if (e instanceof Stop && e.reason === "budget_exhausted") break;
        throw e;
      }
      answer += t.text;
    }
    if (t.stopReason === "max_tokens") note("answer truncated at the output limit");
    return answer;
  }
}

// ---- the public entry point -----------------------------------------------------------------------

export interface RunAgentOptions extends Omit<LoopOptions<ModelReport>, "contract"> {
  mode: "review" | "chat";
  /** Self-critique rounds in review mode (default 1, at most 5); 0 turns it off. */
  critiqueRounds?: number;
  /** Tool-using turns allowed inside one critique round (default 5). */
  critiqueIterations?: number;
}

export interface AgentOutcome extends Omit<LoopOutcome<ModelReport>, "value"> {
  report?: ModelReport;
}

/** The review / chat loop. Review mode appends the REPORT contract to the system prompt. */
export async function runAgent(opts: RunAgentOptions): Promise<AgentOutcome> {
  const { mode, critiqueRounds = 1, critiqueIterations = 5, ...rest } = opts;
  if (mode === "chat") {
    const { value: _none, ...out } = await runLoop<ModelReport>(rest);
    return out;
  }
  const rounds = Math.max(0, Math.min(5, critiqueRounds));
  const { value, ...out } = await runLoop<ModelReport>({
    ...rest,
    system: `${rest.system.trim()}\n${P.REPORT_CONTRACT}`,
    contract: reportContract(rounds, critiqueIterations),
  });
  return { ...out, ...(value ? { report: value } : {}) };
}

export function reportContract(rounds: number, critiqueIterations: number): Contract<ModelReport> {
  return {
    tag: P.REPORT_TAG,
    schema: modelReportSchema,
    repairMessage: P.repairMessage,
    forcedMessage: P.forcedFinalMessage,
    maxTokensNudge: P.MAX_TOKENS_NUDGE,
    ...(rounds > 0 ? { critique: { rounds, maxIterations: critiqueIterations, message: P.critiqueMessage } } : {}),
  };
}

// ---- helpers --------------------------------------------------------------------------------------

/** Appends user content, merging into a trailing user turn so roles keep alternating. */
export function pushUser(messages: Message[], blocks: ContentBlock[]): void {
  const last = messages.at(-1);
  if (last?.role === "user") last.content.push(...blocks);
  else messages.push({ role: "user", content: blocks });
}

/** An assistant turn must carry something a provider accepts (Anthropic rejects empty turns). */
function hasSendable(content: ContentBlock[]): boolean {
  return content.some((b) => (b.type === "text" ? b.text.length > 0 : b.type !== "reasoning"));
}

/** Resolves with the promise, or rejects as soon as the signal fires (a tool that ignores it). */
function abortable<V>(p: Promise<V>, signal: AbortSignal | undefined): Promise<V> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(new Stop("cancelled", "cancelled"));
  return new Promise<V>((resolve, reject) => {
    const onAbort = () => reject(new Stop("cancelled", "cancelled"));
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(signal.aborted ? new Stop("cancelled", "cancelled") : e);
      },
    );
  });
}
