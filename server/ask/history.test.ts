import { describe, expect, it } from "vitest";
import { buildHistory, toolSummary, type PastTurn } from "./history.ts";

const turn = (i: number, answerChars = 40): PastTurn => ({
  question: `question ${i}`,
  answer: `answer ${i} ${"x".repeat(answerChars)}`,
  tools: [{ name: "read_file", input: { path: `src/f${i}.ts` } }],
});

const texts = (h: ReturnType<typeof buildHistory>) =>
  h.messages.map((m) => (m.content[0]!.type === "text" ? m.content[0]!.text : ""));

describe("buildHistory", () => {
  it("keeps every earlier question and answer, each answer with a line naming its tools (no results)", () => {
    const h = buildHistory({ turns: [turn(1), turn(2)], maxTokens: 10_000 });
    expect(h.dropped).toBe(0);
    expect(h.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(texts(h)[1]).toContain('Tools used for this answer: read_file "src/f1.ts"');
    expect(h.questionPrefix).toBe("");
  });

  it("drops the oldest turns first when the history would not fit, keeping the context on the first left", () => {
    const turns = [turn(1, 4000), turn(2, 4000), turn(3, 40)];
    const h = buildHistory({ context: "About finding X.", turns, maxTokens: 600 });
    expect(h.dropped).toBe(2);
    expect(texts(h)[0]).toBe("About finding X.\n\nquestion 3");
  });

  it("hands the context to the new question when no earlier turn is left", () => {
    const h = buildHistory({ context: "About finding X.", turns: [], maxTokens: 1000 });
    expect(h.messages).toEqual([]);
    expect(h.questionPrefix).toBe("About finding X.\n\n");
  });

  it("summarizes at most 20 calls", () => {
    const tools = Array.from({ length: 25 }, (_, i) => ({ name: "grep", input: { pattern: `p${i}` } }));
    expect(toolSummary(tools)).toContain("and 5 more");
  });
});
