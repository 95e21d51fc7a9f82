import { describe, expect, it } from "vitest";
import { McpServerError } from "./errors.ts";
import { decodePromptArgs, encodePromptArgs, toPromptMessages, toolResultToRecord } from "./results.ts";

describe("toolResultToRecord", () => {
  it("prefers structuredContent, then a JSON object in the text (UltraRAG's json.loads(content[0].text))", () => {
    expect(
      toolResultToRecord({ structuredContent: { a: 1 }, content: [{ type: "text", text: '{"a":2}' }] }, ["a"], "t"),
    ).toEqual({ a: 1 });
    expect(
      toolResultToRecord(
        {
          content: [
            { type: "image", data: "" },
            { type: "text", text: '{"q_ls":["x"]}' },
          ],
        },
        ["q_ls"],
        "t",
      ),
    ).toEqual({ q_ls: ["x"] });
  });

  it("puts plain text or a JSON value under the only declared output", () => {
    expect(toolResultToRecord({ content: [{ type: "text", text: "hello" }] }, ["msg"], "t")).toEqual({ msg: "hello" });
    expect(toolResultToRecord({ content: [{ type: "text", text: "[1,2]" }] }, ["ids"], "t")).toEqual({ ids: [1, 2] });
  });

  it("is an error naming the call when it cannot tell which output is which", () => {
    expect(() =>
      toolResultToRecord({ content: [{ type: "text", text: "hello" }] }, ["a", "b"], "MCP server `x`: tool `t`"),
    ).toThrow(McpServerError);
    expect(() =>
      toolResultToRecord({ content: [{ type: "text", text: "hello" }] }, ["a", "b"], "MCP server `x`: tool `t`"),
    ).toThrow(/tool `t` returned text that is not an object .*expected an object with a, b/);
    expect(() => toolResultToRecord({ content: [] }, ["a"], "tool `t`")).toThrow(
      /returned no structured content and no text/,
    );
    expect(toolResultToRecord({ content: [] }, [], "t")).toEqual({});
  });
});

describe("prompt arguments and messages", () => {
  it("lists travel as JSON and come back as lists; text stays text", () => {
    const wire = encodePromptArgs({ q_ls: ["a", "b"], template: "Q: {question}", n: 3, gone: undefined });
    expect(wire).toEqual({ q_ls: '["a","b"]', template: "Q: {question}", n: "3" });
    expect(decodePromptArgs(wire)).toEqual({ q_ls: ["a", "b"], template: "Q: {question}", n: "3" });
    expect(decodePromptArgs({ t: "[not json" })).toEqual({ t: "[not json" });
  });

  it("strings become user messages, messages pass through, other values become JSON text", () => {
    expect(toPromptMessages(["hi", { role: "assistant", content: { type: "text", text: "ok" } }, { x: 1 }])).toEqual([
      { role: "user", content: { type: "text", text: "hi" } },
      { role: "assistant", content: { type: "text", text: "ok" } },
      { role: "user", content: { type: "text", text: '{"x":1}' } },
    ]);
    expect(toPromptMessages(undefined)).toEqual([]);
  });
});
