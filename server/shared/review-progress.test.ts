import { describe, expect, it } from "vitest";
import { foldProgress, NO_PROGRESS, progressFraction, progressText } from "./review-progress.ts";

describe("an agent review's progress", () => {
  it("counts the iterations named by its events and the tool calls that came back", () => {
    const p = [
      { type: "status", payload: { phase: "exploring", message: "started", iteration: 0 } },
      { type: "tool_call", payload: { id: "a", name: "list_dir", input: {}, iteration: 1 } },
      { type: "tool_result", payload: { id: "a" } },
      { type: "usage", payload: { requests: 2 } },
      { type: "tool_call", payload: { id: "b", name: "read_file", input: {}, iteration: 3 } },
      { type: "tool_result", payload: { id: "b" } },
      { type: "chat_message", payload: {} },
    ].reduce(foldProgress, NO_PROGRESS);
    expect(p).toEqual({ iterations: 3, toolsRun: 2 });
    expect(progressText(p, 12)).toBe("iteration 3 of 12 · 2 tool calls run");
    expect(progressFraction(p, 12)).toBeCloseTo(0.05 + 0.9 * 0.25);
  });

  it("starts at 5 % and waits at 95 % past the budget's iterations", () => {
    expect(progressFraction(NO_PROGRESS, 10)).toBe(0.05);
    expect(progressFraction({ iterations: 14, toolsRun: 30 }, 10)).toBeCloseTo(0.95);
    expect(progressText({ iterations: 14, toolsRun: 1 }, 10)).toBe("iteration 10 of 10 · 1 tool call run");
  });
});
