/**
 * A thread's earlier turns as the model's history, fitted to its context window. What is kept:
 * every earlier question and answer as text, each answer followed by one line naming the tool calls
 * it made — the tool *results* are summarized away (they were read for that answer; the model calls
 * the tool again when it needs the code). When even that exceeds the history's share of the context
 * window (a quarter of it; 32k tokens for a model of unknown size), the oldest turns are dropped
 * first. The thread's context (the finding it started from) is always kept, on the first turn left.
 */
import { estimateInputTokens, modelInfo, userText, type Message, type ProviderId } from "../llm/index.ts";

export interface PastTurn {
  question: string;
  answer: string;
  tools: { name: string; input: Record<string, unknown> }[];
}

/** Tokens assumed for a model whose context window the catalog does not know. */
export const UNKNOWN_WINDOW_TOKENS = 128_000;
/** The share of the context window the history may fill. */
export const HISTORY_SHARE = 0.25;

export function historyBudget(provider: ProviderId, model: string): number {
  return Math.floor((modelInfo(provider, model).contextWindow ?? UNKNOWN_WINDOW_TOKENS) * HISTORY_SHARE);
}

/** One line that says which tools an answer used, without their results. */
export function toolSummary(tools: PastTurn["tools"]): string {
  if (tools.length === 0) return "";
  const calls = tools.slice(0, 20).map((t) => {
    const arg = t.input.path ?? t.input.pattern ?? t.input.query ?? t.input.name ?? t.input.symbol;
    return typeof arg === "string" ? `${t.name} ${JSON.stringify(arg.slice(0, 80))}` : t.name;
  });
  const more = tools.length > 20 ? ` and ${tools.length - 20} more` : "";
  return `(Tools used for this answer: ${calls.join(", ")}${more}. Their results are not repeated here; call them again if you need the code.)`;
}

export interface BuiltHistory {
  messages: Message[];
  /** The text to put before the new question (the context, when no earlier turn is left to carry it). */
  questionPrefix: string;
  /** Earlier turns left out to fit. */
  dropped: number;
}

export function buildHistory(opts: { context?: string | null; turns: PastTurn[]; maxTokens: number }): BuiltHistory {
  const context = opts.context ? `${opts.context}\n\n` : "";
  const render = (turns: PastTurn[]): Message[] =>
    turns.flatMap((t, i) => {
      const summary = toolSummary(t.tools);
      return [
        userText(`${i === 0 ? context : ""}${t.question}`),
        {
          role: "assistant" as const,
          content: [{ type: "text" as const, text: summary ? `${t.answer}\n\n${summary}` : t.answer || "(no answer)" }],
        },
      ];
    });
  let kept = opts.turns;
  let messages = render(kept);
  while (kept.length > 0 && estimateInputTokens(undefined, messages, []) > opts.maxTokens) {
    kept = kept.slice(1);
    messages = render(kept);
  }
  return { messages, questionPrefix: kept.length === 0 ? context : "", dropped: opts.turns.length - kept.length };
}
