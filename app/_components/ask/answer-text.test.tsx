import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { AskMessage } from "@/server/shared/ask.ts";
import { AnswerText } from "./answer-text.tsx";

function answer(over: Partial<AskMessage>): AskMessage {
  return {
    id: "a1",
    threadId: "t1",
    kind: "answer",
    author: null,
    body: "",
    status: "done",
    mode: "model",
    toolCalls: [],
    citations: [],
    hits: [],
    usage: null,
    costUsd: null,
    model: null,
    error: null,
    notes: [],
    createdAt: "2026-12-07T00:00:00.000Z",
    finishedAt: null,
    ...over,
  };
}

const live = (text: string) => ({ text, toolCalls: [], requests: 1 });

describe("AnswerText", () => {
  it("streams the text written so far, read out politely", () => {
    render(<AnswerText answer={answer({ status: "running" })} live={live("The session cookie is set in")} />);
    const p = screen.getByText("The session cookie is set in");
    expect(p.getAttribute("aria-live")).toBe("polite");
  });

  it("says what it waits for before any text arrives", () => {
    const { rerender } = render(<AnswerText answer={answer({ status: "queued" })} />);
    expect(screen.getByText("Waiting for the answer before it…")).toBeTruthy();
    rerender(<AnswerText answer={answer({ status: "running" })} live={live("")} />);
    expect(screen.getByText("Thinking…")).toBeTruthy();
  });

  it("renders the finished answer as Markdown, with code links", () => {
    render(
      <AnswerText
        answer={answer({ body: "Set in **src/app.js:12**." })}
        codeLink={(p, l) => `/code?file=${p}&line=${l}`}
      />,
    );
    expect(screen.getByText("Set in", { exact: false }).querySelector("strong, a")).toBeTruthy();
    expect(screen.queryByText("**", { exact: false })).toBeNull();
  });

  it("says a cancelled answer was cancelled before it said anything", () => {
    render(<AnswerText answer={answer({ status: "cancelled" })} />);
    expect(screen.getByText("Cancelled before it said anything.")).toBeTruthy();
  });
});
