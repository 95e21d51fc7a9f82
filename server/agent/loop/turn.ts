/**
 * A model turn: stream one request over the conversation, emit its tokens, tool calls and running
 * usage as they arrive, append the assistant turn. A cancelled or failed request throws a Stop; a
 * request the budget refused before sending it does not count as an iteration.
 */
import type { ContentBlock, StopEvent, ToolUseBlock, Usage } from "../../llm/index.ts";
import type { Phase } from "../events.ts";
import { type LoopRun, emit, say } from "./state.ts";
import { Stop, cancelled, throwIfCancelled } from "./stop.ts";
import { answerToolCalls } from "./tools.ts";
import type { Turn } from "./types.ts";

/** Phases that think with the model's own reasoning effort; the others ask for a quick, final answer. */
const THINKING_PHASES: ReadonlySet<Phase> = new Set(["exploring", "critiquing", "verifying"]);

export async function modelTurn(run: LoopRun, phase: Phase, withTools: boolean): Promise<Turn> {
  const s = run.state;
  throwIfCancelled(run.signal);
  s.iterations++;
  const requestsBefore = s.requests;
  const calls: ToolUseBlock[] = [];
  let text = "";
  let stop: StopEvent | undefined;
  const stream = run.llm.stream({
    system: run.system,
    messages: s.messages,
    // Tool definitions stay on every request: Anthropic refuses a history with tool blocks without them.
    ...(run.defs.length ? { tools: run.defs, toolChoice: withTools ? ("auto" as const) : ("none" as const) } : {}),
    ...(run.maxTokens ? { maxTokens: run.maxTokens } : {}),
    ...(THINKING_PHASES.has(phase) ? {} : { reasoningEffort: "minimal" as const }),
    ...(run.cacheKey ? { cacheKey: run.cacheKey } : {}),
    signal: run.signal,
    budget: run.budget,
  });
  for await (const ev of stream) {
    if (ev.type === "text_delta") {
      text += ev.text;
      emit(run, { type: "token", text: ev.text, phase });
    } else if (ev.type === "tool_use") {
      calls.push({ type: "tool_use", id: ev.id, name: ev.name, input: ev.input });
      emit(run, { type: "tool_call", id: ev.id, name: ev.name, input: ev.input, iteration: s.iterations });
    } else if (ev.type === "usage") {
      countUsage(run, ev.usage, ev.costUsd);
    } else if (ev.type === "stop") {
      stop = ev;
    }
  }
  if (!stop) throw new Stop("error", "the model stream ended without a stop event");
  if (stop.reason === "error") {
    const err = stop.error!;
    if (err.kind === "aborted" || run.signal?.aborted) throw cancelled(run.signal);
    if (err.kind === "budget_exceeded") {
      if (s.requests === requestsBefore) s.iterations--; // refused before sending: not a model turn
      throw new Stop("budget_exhausted", err.message);
    }
    throw new Stop("error", err.message, {
      kind: err.kind,
      ...(err.status !== undefined ? { status: err.status } : {}),
    });
  }
  s.messages.push({
    role: "assistant",
    content: hasSendable(stop.content) ? stop.content : [...stop.content, { type: "text", text: "(no answer)" }],
  });
  s.lastTurn = { text, calls, stopReason: stop.reason };
  return s.lastTurn;
}

/**
 * A turn without tools after an instruction (a nudge, a forced final, a repair). Calls the model makes
 * anyway are answered with a refusal, so the history stays valid for the next request.
 */
export async function noToolsTurn(run: LoopRun, phase: Phase, instruction: string): Promise<Turn> {
  say(run, instruction);
  const t = await modelTurn(run, phase, false);
  if (t.calls.length) await answerToolCalls(run, t.calls, false);
  return t;
}

function countUsage(run: LoopRun, usage: Usage, costUsd: number | undefined): void {
  const s = run.state;
  s.requests++;
  s.usage.inputTokens += usage.inputTokens;
  s.usage.outputTokens += usage.outputTokens;
  s.usage.cacheReadTokens += usage.cacheReadTokens;
  s.usage.cacheWriteTokens += usage.cacheWriteTokens;
  s.costUsd = s.costUsd === undefined || costUsd === undefined ? undefined : s.costUsd + costUsd;
  emit(run, {
    type: "usage",
    usage: { ...s.usage },
    ...(s.costUsd === undefined ? {} : { costUsd: s.costUsd }),
    requests: s.requests,
  });
}

/** An assistant turn must carry something a provider accepts (Anthropic rejects empty turns). */
function hasSendable(content: ContentBlock[]): boolean {
  return content.some((b) => (b.type === "text" ? b.text.length > 0 : b.type !== "reasoning"));
}
