/**
 * A follow-up turn, the way UltraRAG's chat answers one (`chat_multiturn_stream`): once a session
 * has an answer, the next questions skip the pipeline and go to its generation model with the
 * earlier turns as the history — `[{role: user, content: q1}, {role: assistant, content: a1}, …,
 * {role: user, content: qN}]`, the generation alias's own system_prompt in front. Argus adds one
 * system message: the sources the pipeline retrieved for the session, numbered as they were, so a
 * follow-up can cite them too (UltraRAG's follow-ups see only the answers' text).
 *
 * It runs as a pipeline run of its own (a run room streams its tokens, the run history lists it):
 * `chat_history.history` puts the turns into the pool, then `<alias>.generation_init` and
 * `<alias>.multiturn_generate` with the pipeline's parameters for that alias.
 */
import { stringify } from "yaml";
import type { ChatSource } from "../../shared/pipeline-chat.ts";

export interface PastTurn {
  role: string;
  body: string;
  status: string;
  mode: string | null;
  sources: ChatSource[];
}

export type HistoryMessage = { role: "system" | "user" | "assistant"; content: string };

/** How much of the past a follow-up carries: the last turns, the sources cut to fit. */
export const HISTORY_LIMITS = { turns: 20, sourceChars: 1500, sourcesTotal: 12_000 };

/** The sources a follow-up may cite: those of the session's latest answer that ran the pipeline. */
export function contextSources(past: readonly PastTurn[]): ChatSource[] {
  for (let i = past.length - 1; i >= 0; i--) {
    const t = past[i]!;
    if (t.role === "assistant" && t.status === "done" && t.mode === "pipeline") return t.sources;
  }
  return [];
}

export function historyMessages(
  past: readonly PastTurn[],
  question: string,
  sources: readonly ChatSource[],
  limits = HISTORY_LIMITS,
): HistoryMessage[] {
  // Answered pairs only: a question whose answer failed is left out with it.
  const pairs: HistoryMessage[] = [];
  for (let i = 0; i + 1 < past.length; i++) {
    const q = past[i]!;
    const a = past[i + 1]!;
    if (q.role === "user" && a.role === "assistant" && a.status === "done" && a.body.trim()) {
      pairs.push({ role: "user", content: q.body }, { role: "assistant", content: a.body });
      i++;
    }
  }
  const kept = pairs.slice(Math.max(0, pairs.length - limits.turns * 2));
  const out: HistoryMessage[] = [];
  if (sources.length) {
    let budget = limits.sourcesTotal;
    const lines: string[] = [];
    for (const s of sources) {
      const text = s.content.length > limits.sourceChars ? `${s.content.slice(0, limits.sourceChars)}…` : s.content;
      if (text.length > budget) break;
      budget -= text.length;
      lines.push(`[${s.id}] ${text}`);
    }
    if (lines.length)
      out.push({
        role: "system",
        content: `Sources retrieved earlier in this conversation. Cite them as [n] when you use them.\n\n${lines.join("\n\n")}`,
      });
  }
  out.push(...kept, { role: "user", content: question });
  return out;
}

/** The alias of the history server in a follow-up's pipeline (never the generation alias's name). */
export const historyAlias = (generationAlias: string) =>
  generationAlias === "chat_history" ? "chat_turns" : "chat_history";

/** The follow-up's pipeline file, with the generation alias named as in the pipeline. */
export function conversationPipeline(generationAlias: string): string {
  const history = historyAlias(generationAlias);
  return stringify(
    {
      servers: { [history]: "servers/chat_history", [generationAlias]: "servers/generation" },
      pipeline: [`${history}.history`, `${generationAlias}.generation_init`, `${generationAlias}.multiturn_generate`],
    },
    { indentSeq: false },
  );
}
