import { describe, expect, it } from "vitest";
import { TextToolCallStreamer, parseTextToolCalls } from "./json-tools.ts";
import type { ToolDefinition } from "./types.ts";

const tools: ToolDefinition[] = [
  {
    name: "read_file",
    description: "Read",
    inputSchema: {
      type: "object",
      properties: { path: { type: "string" }, mode: { enum: ["head", "all"] } },
      required: ["path"],
      additionalProperties: false,
    },
  },
];

describe("parseTextToolCalls", () => {
  it("takes several tagged calls and keeps the prose around them", () => {
    const r = parseTextToolCalls(
      'Both.\n<tool_call>{"name":"read_file","arguments":{"path":"a"}}</tool_call>\n<tool_call>\n```json\n{"name":"read_file","arguments":{"path":"b","mode":"head"}}\n```\n</tool_call>',
      tools,
    );
    expect(r.errors).toEqual([]);
    expect(r.calls.map((c) => c.input)).toEqual([{ path: "a" }, { path: "b", mode: "head" }]);
    expect(r.text).toBe("Both.\n\n");
    expect(new Set(r.calls.map((c) => c.id)).size).toBe(2);
  });

  it("tolerates a missing closing tag, Llama-style parameters and double-encoded arguments", () => {
    expect(
      parseTextToolCalls('<tool_call>{"name":"read_file","parameters":{"path":"x"}}', tools).calls[0]?.input,
    ).toEqual({ path: "x" });
    expect(
      parseTextToolCalls('{"name":"read_file","arguments":"{\\"path\\":\\"y\\"}"}', tools).calls[0]?.input,
    ).toEqual({ path: "y" });
    expect(
      parseTextToolCalls('{"tool_calls":[{"name":"read_file","arguments":{"path":"z"}}]}', tools).calls[0]?.input,
    ).toEqual({ path: "z" });
  });

  it("names what is wrong with a bad call", () => {
    expect(parseTextToolCalls("<tool_call>{nope}</tool_call>", tools).errors[0]).toMatch(/not valid JSON/);
    expect(parseTextToolCalls('<tool_call>{"arguments":{}}</tool_call>', tools).errors[0]).toMatch(
      /needs "name" and "arguments"/,
    );
    expect(parseTextToolCalls('<tool_call>{"name":"read_file","arguments":[1]}</tool_call>', tools).errors[0]).toMatch(
      /not a JSON object/,
    );
    expect(
      parseTextToolCalls('<tool_call>{"name":"read_file","arguments":{"path":"a","mode":"tail"}}</tool_call>', tools)
        .errors[0],
    ).toMatch(/mode/);
    expect(
      parseTextToolCalls('<tool_call>{"name":"read_file","arguments":{"path":"a","extra":1}}</tool_call>', tools)
        .errors[0],
    ).toMatch(/extra/);
  });

  it("leaves ordinary text and non-call JSON alone", () => {
    expect(parseTextToolCalls("No tools needed.", tools)).toEqual({ text: "No tools needed.", calls: [], errors: [] });
    expect(parseTextToolCalls('{"findings": []}', tools)).toEqual({ text: '{"findings": []}', calls: [], errors: [] });
  });
});

describe("TextToolCallStreamer", () => {
  const run = (chunks: string[]) => {
    const s = new TextToolCallStreamer();
    const shown = chunks.map((c) => s.push(c));
    return { shown, end: s.finish(tools) };
  };

  it("holds back a tag split across chunks and everything after it", () => {
    const { shown, end } = run([
      "Reading",
      " now.<",
      "tool_",
      'call>{"name":"read_file","arguments":{"path":"q"}}</tool_call>',
    ]);
    expect(shown).toEqual(["Reading", " now.", "", ""]);
    expect(end.rest).toBe("");
    expect(end.calls[0]?.input).toEqual({ path: "q" });
  });

  it("releases a held-back '<' that turned out not to be a tag", () => {
    const { shown, end } = run(["a <", "b and c"]);
    expect(shown).toEqual(["a ", "<b and c"]);
    expect(end.rest).toBe("");
  });

  it("buffers an answer that starts like JSON until the end", () => {
    const { shown, end } = run(["  {", '"findings": [] }']);
    expect(shown).toEqual(["", ""]);
    expect(end.rest).toBe('  {"findings": [] }');
  });
});
