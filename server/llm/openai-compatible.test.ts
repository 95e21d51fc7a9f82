/**
 * Chat Completions (OpenAI-compatible servers) through the real openai SDK: native streaming
 * tool_calls, and text-JSON tool calls for models without native tool calling.
 */
import { describe, expect, it } from "vitest";
import { clientFor, collect, scriptedServerForFile, GREP_TOOL, READ_FILE_TOOL } from "./test-support.ts";
import { type Message, type ToolDefinition, userText } from "./types.ts";

const server = await scriptedServerForFile();

const tools: ToolDefinition[] = [READ_FILE_TOOL, GREP_TOOL];

describe("openai-compatible, native tools", () => {
  it("streams tool_calls whose arguments are split across chunks, several calls at once", async () => {
    server.setScript([
      {
        text: ["Let me ", "look."],
        toolCalls: [
          { id: "call_1", name: "read_file", input: { path: "src/main.rs", start: 10 }, chunks: 7 },
          { id: "call_2", name: "grep", input: { pattern: "unsafe \\{" }, chunks: 3 },
        ],
        usage: { input: 300, output: 40, cacheRead: 100 },
      },
    ]);
    const { events, stop } = await collect(
      clientFor(server, "openai-compatible").stream({ system: "sys", messages: [userText("go")], tools }),
    );

    expect(stop).toEqual({
      type: "stop",
      reason: "tool_use",
      content: [
        { type: "text", text: "Let me look." },
        { type: "tool_use", id: "call_1", name: "read_file", input: { path: "src/main.rs", start: 10 } },
        { type: "tool_use", id: "call_2", name: "grep", input: { pattern: "unsafe \\{" } },
      ],
    });
    expect(events.find((e) => e.type === "usage")).toMatchObject({
      usage: { inputTokens: 300, outputTokens: 40, cacheReadTokens: 100 },
    });
    const body = server.requests[0]!.body;
    expect(body).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 16384,
      temperature: 0,
    });
    expect((body.tools as unknown[])[0]).toEqual({
      type: "function",
      function: { name: "read_file", description: "Read a file", parameters: tools[0]!.inputSchema },
    });
  });

  it("sends tool results as tool messages right after the assistant's tool_calls", async () => {
    server.setScript([{ match: "42 lines", text: "Fine." }]);
    const history: Message[] = [
      userText("check"),
      {
        role: "assistant",
        content: [
          { type: "text", text: "Reading." },
          { type: "tool_use", id: "c1", name: "read_file", input: { path: "a" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "text", text: "(also hurry)" },
          { type: "tool_result", toolUseId: "c1", content: "42 lines", isError: false },
        ],
      },
    ];
    const { stop } = await collect(clientFor(server, "openai-compatible").stream({ messages: history, tools }));

    expect(stop.reason).toBe("end_turn");
    expect(server.requests[0]!.body.messages).toEqual([
      { role: "user", content: "check" },
      {
        role: "assistant",
        content: "Reading.",
        tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: '{"path":"a"}' } }],
      },
      { role: "tool", tool_call_id: "c1", content: "42 lines" },
      { role: "user", content: "(also hurry)" },
    ]);
  });

  it("maps finish_reason length to a max_tokens stop", async () => {
    server.setScript([{ text: "cut sho", stopReason: "max_tokens" }]);
    const { stop } = await collect(clientFor(server, "openai-compatible").stream({ messages: [userText("x")] }));
    expect(stop).toMatchObject({ reason: "max_tokens", content: [{ type: "text", text: "cut sho" }] });
  });

  it("works with servers that send no usage chunk", async () => {
    server.setScript([{ text: "hi" }]);
    const { events, stop } = await collect(
      clientFor(server, "openai-compatible", { streamUsage: false }).stream({ messages: [userText("x")] }),
    );
    expect(server.requests[0]!.body).not.toHaveProperty("stream_options");
    expect(stop.reason).toBe("end_turn");
    // Nothing reported: an estimate (~4 characters a token) keeps token budgets meaningful.
    expect(events.filter((e) => e.type === "usage")).toEqual([
      {
        type: "usage",
        usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
        estimated: true,
      },
    ]);
  });
});

describe("openai-compatible, text-JSON tools", () => {
  const json = (extra = {}) => clientFor(server, "openai-compatible", { toolMode: "json", ...extra });

  it("describes tools in the prompt and parses a <tool_call> split across chunks, streaming only the prose", async () => {
    server.setScript([
      {
        text: [
          "I'll read it.\n<too",
          'l_call>\n{"name": "read_f',
          'ile", "arguments": {"path": "a.py"}}\n</tool',
          "_call>",
        ],
      },
    ]);
    const { events, stop } = await collect(
      json().stream({ system: "You review code.", messages: [userText("go")], tools }),
    );

    const deltas = events.filter((e) => e.type === "text_delta").map((e) => e.text);
    expect(deltas.join("")).toBe("I'll read it.\n");
    expect(deltas.some((d) => d.includes("<"))).toBe(false);
    expect(stop.reason).toBe("tool_use");
    expect(stop.content).toEqual([
      { type: "text", text: "I'll read it.\n" },
      { type: "tool_use", id: expect.stringMatching(/^call_/), name: "read_file", input: { path: "a.py" } },
    ]);
    const body = server.requests[0]!.body as { tools?: unknown; messages: Array<{ role: string; content: string }> };
    expect(body.tools).toBeUndefined();
    expect(body.messages[0]!.role).toBe("system");
    expect(body.messages[0]!.content).toMatch(/^You review code\.\n\n# Tools\n/);
    expect(body.messages[0]!.content).toContain('- read_file: Read a file\n  arguments JSON Schema: {"type":"object"');
  });

  it("replays the loop history as text and accepts a bare JSON call", async () => {
    server.setScript([{ match: "def a", text: '```json\n{"name": "grep", "arguments": {"pattern": "def"}}\n```' }]);
    const history: Message[] = [
      userText("go"),
      { role: "assistant", content: [{ type: "tool_use", id: "call_x", name: "read_file", input: { path: "a.py" } }] },
      { role: "user", content: [{ type: "tool_result", toolUseId: "call_x", content: "def a(): pass" }] },
    ];
    const { events, stop } = await collect(json().stream({ messages: history, tools }));

    expect(events.filter((e) => e.type === "text_delta")).toEqual([]);
    expect(stop.content).toEqual([
      { type: "tool_use", id: expect.any(String), name: "grep", input: { pattern: "def" } },
    ]);
    expect((server.requests[0]!.body.messages as unknown[]).slice(1)).toEqual([
      { role: "user", content: "go" },
      { role: "assistant", content: '<tool_call>\n{"name":"read_file","arguments":{"path":"a.py"}}\n</tool_call>' },
      { role: "user", content: '<tool_result name="read_file">\ndef a(): pass\n</tool_result>' },
    ]);
  });

  it("streams a plain final answer as text, even one that is JSON but not a call", async () => {
    server.setScript([
      { match: "prose", text: "All good, no <tool calls> needed." },
      { text: ['{"findings": ', "[]}"] },
    ]);
    const prose = await collect(json().stream({ messages: [userText("prose")], tools }));
    expect(prose.stop).toMatchObject({
      reason: "end_turn",
      content: [{ type: "text", text: "All good, no <tool calls> needed." }],
    });

    const data = await collect(json().stream({ messages: [userText("data")], tools }));
    expect(data.stop).toMatchObject({ reason: "end_turn", content: [{ type: "text", text: '{"findings": []}' }] });
  });

  it("rejects a call to an unknown tool or with arguments that break the schema", async () => {
    server.setScript([
      { match: "unknown", text: '<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>' },
      { match: "schema", text: '<tool_call>{"name": "read_file", "arguments": {"start": "ten"}}</tool_call>' },
    ]);
    const unknown = await collect(json().stream({ messages: [userText("unknown")], tools }));
    expect(unknown.stop.error).toMatchObject({ kind: "invalid_response", retryable: false });
    expect(unknown.stop.error?.message).toContain('unknown tool "rm_rf" (available: read_file, grep)');

    const schema = await collect(json().stream({ messages: [userText("schema")], tools }));
    expect(schema.stop.error?.message).toContain('arguments of "read_file" do not match its schema');
    expect(schema.stop.error?.message).toMatch(/path/);
  });
});

describe("openai-compatible, UltraRAG-style requests (pipelines' generation server)", () => {
  it("sends top_p and extra body fields, and a non-streamed request when asked, answered as events", async () => {
    server.setScript([{ text: "A whole answer", usage: { input: 12, output: 3 } }]);
    const { events, stop, text } = await collect(
      clientFor(server, "openai-compatible").stream({
        messages: [userText("q")],
        temperature: 0,
        topP: 1,
        maxTokens: 256,
        extraBody: { chat_template_kwargs: { enable_thinking: false }, model: "not-this", stream: true },
        wireStreaming: false,
      }),
    );
    expect(text).toBe("A whole answer");
    expect(stop.reason).toBe("end_turn");
    expect(events.find((e) => e.type === "usage")).toMatchObject({ usage: { inputTokens: 12, outputTokens: 3 } });
    const body = server.requests[0]!.body;
    expect(body).toMatchObject({
      model: "qwen3:8b",
      temperature: 0,
      top_p: 1,
      max_tokens: 256,
      chat_template_kwargs: { enable_thinking: false },
    });
    expect(body.stream).not.toBe(true);
    expect(body).not.toHaveProperty("stream_options");
  });
});
