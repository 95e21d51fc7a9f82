"use client";
/**
 * What an answer says, wherever it is shown (the Ask Argus panel's answer-view.tsx and the chat's
 * rooms/chat-answer.tsx): its status in words, and its text — streamed while it is written, then
 * the final Markdown with code links.
 */
import type { AskMessage } from "@/server/shared/ask.ts";
import type { CodeLink } from "../review/code-ref-links.ts";
import { Markdown } from "../review/markdown.tsx";
import { cx } from "../ui.tsx";
import type { LiveAnswer } from "./fold.ts";

export const ANSWER_STATUS: Record<AskMessage["status"], string> = {
  queued: "queued",
  running: "answering…",
  done: "answered",
  failed: "failed",
  cancelled: "cancelled",
};

export function isAnswering(answer: AskMessage): boolean {
  return answer.status === "queued" || answer.status === "running";
}

/** The answer's text; `compact` tightens the spacing for the chat. */
export function AnswerText({
  answer,
  live,
  codeLink,
  compact = false,
}: {
  answer: AskMessage;
  live?: LiveAnswer;
  codeLink?: CodeLink;
  compact?: boolean;
}) {
  if (isAnswering(answer))
    return (
      <p className={cx(compact ? "mt-0.5" : "mt-1", "whitespace-pre-wrap text-sm")} aria-live="polite">
        {live?.text || (answer.status === "queued" ? "Waiting for the answer before it…" : "Thinking…")}
      </p>
    );
  return (
    <Markdown
      className={cx(compact ? "mt-0.5 [&_p]:my-0.5" : "mt-1 [&_p]:my-1", "break-words text-sm")}
      codeLink={codeLink}
    >
      {answer.body || (answer.status === "cancelled" ? "_Cancelled before it said anything._" : "")}
    </Markdown>
  );
}
