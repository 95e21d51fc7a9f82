"use client";
/**
 * Argus's answer to an `@argus …` chat message, shown in the chat under that message: streamed while
 * it is written, its tool calls folded into one line, then the answer's Markdown — and a link that
 * opens its thread in the Ask Argus panel (citations, "Answer → finding", follow-ups live there).
 */
import { useMemo } from "react";
import { ASK_THREAD_HASH, type AskMessage } from "@/server/shared/ask.ts";
import type { RoomEvent } from "@/server/shared/room-events.ts";
import { AnswerText, ANSWER_STATUS, isAnswering } from "../ask/answer-text.tsx";
import { foldAsk, type LiveAnswer } from "../ask/fold.ts";
import type { CodeLink } from "../review/code-ref-links.ts";
import { Badge } from "../ui.tsx";

export interface ChatAnswers {
  /** The answer to a chat message (the latest, should it have been asked again), and its live stream. */
  of(chatMessageId: string): { answer: AskMessage; live?: LiveAnswer } | undefined;
}

/** The room's answers to its chat messages, folded from its ask.* events. */
export function useChatAnswers(events: readonly RoomEvent[], enabled: boolean): ChatAnswers {
  return useMemo(() => {
    if (!enabled) return { of: () => undefined };
    const folded = foldAsk(events);
    const byChat = new Map<string, AskMessage>();
    for (const m of folded.messages.values())
      if (m.kind === "answer" && m.chatMessageId) byChat.set(m.chatMessageId, m);
    return {
      of(id: string) {
        const answer = byChat.get(id);
        return answer ? { answer, live: folded.live.get(answer.id) } : undefined;
      },
    };
  }, [events, enabled]);
}

export function ChatAnswer({ answer, live, codeLink }: { answer: AskMessage; live?: LiveAnswer; codeLink?: CodeLink }) {
  const active = isAnswering(answer);
  const calls = active ? (live?.toolCalls ?? []) : answer.toolCalls;
  const openThread = () => {
    // The panel opens the thread on the hash; the same hash again still opens it.
    const hash = `#${ASK_THREAD_HASH}${answer.threadId}`;
    if (window.location.hash === hash) window.dispatchEvent(new HashChangeEvent("hashchange"));
  };
  return (
    <div
      className="mt-1.5 rounded-md border-l-2 border-brand-600 bg-zinc-50 py-1 pl-2 pr-1 dark:bg-zinc-800/60"
      data-chat-answer={answer.id}
      data-status={answer.status}
      aria-label="Argus's answer"
      role="group"
    >
      <p className="flex flex-wrap items-center gap-2 text-xs">
        <span className="font-medium text-zinc-800 dark:text-zinc-100">Argus</span>
        <Badge tone={answer.status === "done" ? "green" : active ? "brand" : "amber"}>
          {ANSWER_STATUS[answer.status]}
        </Badge>
        {answer.mode === "search" && <Badge tone="amber">search results</Badge>}
        <a
          href={`#${ASK_THREAD_HASH}${answer.threadId}`}
          onClick={openThread}
          className="ml-auto text-brand-600 underline"
        >
          Open in Ask Argus
        </a>
      </p>
      {calls.length > 0 && (
        <details className="mt-0.5 text-xs text-zinc-600 dark:text-zinc-300">
          <summary className="cursor-pointer">
            {calls.length} tool call{calls.length === 1 ? "" : "s"}
          </summary>
          <ol className="ml-4 list-decimal font-mono" aria-label="Tool calls">
            {calls.map((c) => (
              <li key={c.id}>
                {c.name}({Object.values(c.input).map(String).join(", ")}){active && !c.result ? " …" : ""}
              </li>
            ))}
          </ol>
        </details>
      )}
      <AnswerText answer={answer} live={live} codeLink={codeLink} compact />
      {answer.error && (
        <p className="text-xs text-red-700 dark:text-red-400" role="alert">
          {answer.error}
        </p>
      )}
    </div>
  );
}
