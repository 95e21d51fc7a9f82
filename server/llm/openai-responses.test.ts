/**
 * The OpenAI Responses adapter through the real openai SDK against the scripted server.
 */
import { describe, expect, it } from "vitest";
import { clientFor, collect, scriptedServerForFile, READ_FILE_TOOL } from "./test-support.ts";
import { type Message, type ToolDefinition, userText } from "./types.ts";

const server = await scriptedServerForFile();

const tools: ToolDefinition[] = [READ_FILE_TOOL];

describe("openai (Responses)", () => {
  it("streams text and reports usage with cached tokens", async () => {
    server.setScript([
      { text: ["The ", "diff ", "looks ", "fine."], usage: { input: 2000, output: 4, cacheRead: 1500 } },
    ]);
    const { events, stop } = await collect(
      clientFor(server, "openai").stream({ system: "Review.", messages: [userText("go")], cacheKey: "job-7" }),
    );

    expect(events.filter((e) => e.type === "text_delta").map((e) => e.text)).toEqual([
      "The ",
      "diff ",
      "looks ",
      "fine.",
    ]);
    expect(stop).toEqual({
      type: "stop",
      reason: "end_turn",
      content: [{ type: "text", text: "The diff looks fine." }],
    });
    expect(events.find((e) => e.type === "usage")).toMatchObject({
      usage: { inputTokens: 2000, outputTokens: 4, cacheReadTokens: 1500, cacheWriteTokens: 0 },
    });
    const body = server.requests[0]!.body;
    expect(body).toMatchObject({
      instructions: "Review.",
      store: false,
      stream: true,
      prompt_cache_key: "job-7",
      max_output_tokens: 16384,
    });
  });

  it("assembles parallel tool calls whose arguments arrive across several deltas", async () => {
    server.setScript([
      {
        text: "Reading both.",
        toolCalls: [
          { id: "call_a", name: "read_file", input: { path: 'a/"x".ts' }, chunks: 6 },
          { id: "call_b", name: "read_file", input: { path: "b.ts" }, chunks: 4 },
        ],
      },
    ]);
    const { stop } = await collect(clientFor(server, "openai").stream({ messages: [userText("read")], tools }));

    expect(stop).toEqual({
      type: "stop",
      reason: "tool_use",
      content: [
        { type: "text", text: "Reading both." },
        { type: "tool_use", id: "call_a", name: "read_file", input: { path: 'a/"x".ts' } },
        { type: "tool_use", id: "call_b", name: "read_file", input: { path: "b.ts" } },
      ],
    });
    expect(server.requests[0]!.body.tools).toEqual([
      {
        type: "function",
        name: "read_file",
        description: "Read a file",
        parameters: tools[0]!.inputSchema,
        strict: false,
      },
    ]);
  });

  it("runs a three-iteration tool loop with matching call ids", async () => {
    server.setScript([
      { match: "start", toolCalls: [{ name: "read_file", input: { path: "1" } }] },
      { match: "r1", toolCalls: [{ name: "read_file", input: { path: "2" } }] },
      { match: "r2", toolCalls: [{ name: "read_file", input: { path: "3" } }] },
      { match: "r3", text: "done" },
    ]);
    const client = clientFor(server, "openai");
    const history: Message[] = [userText("start")];
    for (let i = 0; i < 10; i++) {
      const { stop } = await collect(client.stream({ messages: history, tools }));
      history.push({ role: "assistant", content: stop.content });
      if (stop.reason !== "tool_use") break;
      const call = stop.content.find((b) => b.type === "tool_use")!;
      history.push({
        role: "user",
        content: [{ type: "tool_result", toolUseId: call.id, content: `r${String(call.input.path)}` }],
      });
    }

    expect(server.requests.map((r) => r.rule)).toEqual([0, 1, 2, 3]);
    expect(history.at(-1)).toEqual({ role: "assistant", content: [{ type: "text", text: "done" }] });
    const input = server.requests[3]!.body.input as Array<{ type: string; call_id?: string }>;
    const calls = input.filter((i) => i.type === "function_call").map((i) => i.call_id);
    const outputs = input.filter((i) => i.type === "function_call_output").map((i) => i.call_id);
    expect(calls).toHaveLength(3);
    expect(outputs).toEqual(calls);
  });

  it("maps an incomplete response (max_output_tokens) to a max_tokens stop", async () => {
    server.setScript([{ text: "partial answ", stopReason: "max_tokens" }]);
    const { stop } = await collect(clientFor(server, "openai").stream({ messages: [userText("x")], maxTokens: 10 }));
    expect(stop).toMatchObject({ reason: "max_tokens", content: [{ type: "text", text: "partial answ" }] });
    expect(server.requests[0]!.body.max_output_tokens).toBe(10);
  });

  it("sends the nearest reasoning effort the model accepts, and temperature only where allowed", async () => {
    server.setScript([{ text: "ok" }]);
    await collect(clientFor(server, "openai").stream({ messages: [userText("x")], reasoningEffort: "minimal" }));
    await collect(
      clientFor(server, "openai", { model: "gpt-4.1", temperature: 0.2 }).stream({
        messages: [userText("x")],
        reasoningEffort: "minimal",
      }),
    );

    const [gpt54, gpt41] = server.requests.map((r) => r.body);
    expect(gpt54!.reasoning).toEqual({ effort: "none" }); // gpt-5.4 has no "minimal"; "none" is nearest and cheapest
    expect(gpt54).not.toHaveProperty("temperature");
    expect(gpt41).not.toHaveProperty("reasoning");
    expect(gpt41!.temperature).toBe(0.2);
  });

  it("surfaces response.failed as a non-retried provider error", async () => {
    // A failed response is not scriptable as a rule, so feed the adapter the event stream directly.
    const { fromResponsesEvents } = await import("./openai-responses.ts");
    const events = (async function* () {
      yield {
        type: "response.failed",
        sequence_number: 1,
        response: { error: { code: "invalid_prompt", message: "bad prompt" } },
      } as never;
    })();
    await expect(async () => {
      for await (const _ of fromResponsesEvents(events, "gpt-5.4")) void _;
    }).rejects.toThrow("openai (gpt-5.4): response failed: bad prompt (invalid_prompt)");
  });
});
