/**
 * The Anthropic adapter through the real @anthropic-ai/sdk against the scripted server over HTTP.
 */
import { describe, expect, it } from "vitest";
import { signatureFor } from "./scripted/wire.ts";
import { clientFor, collect, scriptedServerForFile, GREP_TOOL, READ_FILE_TOOL } from "./test-support.ts";
import { type Message, type ToolDefinition, userText } from "./types.ts";

const server = await scriptedServerForFile();

const tools: ToolDefinition[] = [READ_FILE_TOOL, GREP_TOOL];

describe("anthropic", () => {
  it("streams text in chunks and reports usage with cache figures", async () => {
    server.setScript([
      {
        match: "hello",
        text: ["Hel", "lo, ", "wor", "ld"],
        usage: { input: 1000, output: 7, cacheRead: 600, cacheWrite: 300 },
      },
    ]);
    const { events, stop } = await collect(
      clientFor(server, "anthropic").stream({ system: "Be brief.", messages: [userText("hello")] }),
    );

    expect(events.filter((e) => e.type === "text_delta").map((e) => e.text)).toEqual(["Hel", "lo, ", "wor", "ld"]);
    expect(stop).toEqual({ type: "stop", reason: "end_turn", content: [{ type: "text", text: "Hello, world" }] });
    const usage = events.find((e) => e.type === "usage");
    expect(usage).toMatchObject({
      usage: { inputTokens: 1000, outputTokens: 7, cacheReadTokens: 600, cacheWriteTokens: 300 },
    });
    // Sonnet 5.5: 100 uncached × $2 + 600 reads × $0.10 + 300 writes × $2.50 + 7 out × $10, per million.
    expect(usage?.type === "usage" && usage.costUsd).toBeCloseTo((100 * 2 + 600 * 0.1 + 300 * 2.5 + 7 * 10) / 1e6, 12);
    // The SDK sent the key; the record keeps it out.
    expect(server.requests[0]!.headers.authorization ?? server.requests[0]!.headers["x-api-key"]).toBe("[redacted]");
  });

  it("assembles a tool call whose arguments arrive across several deltas", async () => {
    const input = { path: 'src/ü "quoted"\\path.ts', options: { lines: [1, 20], follow: true } };
    server.setScript([{ toolCalls: [{ id: "toolu_1", name: "read_file", input, chunks: 9 }] }]);
    const { events, stop } = await collect(
      clientFor(server, "anthropic").stream({ messages: [userText("read it")], tools }),
    );

    expect(events.filter((e) => e.type === "tool_use")).toEqual([
      { type: "tool_use", id: "toolu_1", name: "read_file", input },
    ]);
    expect(stop.reason).toBe("tool_use");
    expect(stop.content).toEqual([{ type: "tool_use", id: "toolu_1", name: "read_file", input }]);
  });

  it("runs a three-iteration tool loop, caching the growing prefix", async () => {
    server.setScript([
      { match: "review src", text: "Reading a.", toolCalls: [{ name: "read_file", input: { path: "a.ts" } }] },
      { match: "contents of a.ts", toolCalls: [{ name: "read_file", input: { path: "b.ts" } }] },
      { match: "contents of b.ts", toolCalls: [{ name: "grep", input: { pattern: "TODO" } }] },
      { match: "grep: 2 hits", text: "Two TODOs remain." },
    ]);
    const client = clientFor(server, "anthropic");
    const history: Message[] = [userText("review src")];
    const results: Record<string, string> = {
      "a.ts": "contents of a.ts",
      "b.ts": "contents of b.ts",
      TODO: "grep: 2 hits",
    };
    let iterations = 0;
    for (;;) {
      const { stop } = await collect(client.stream({ system: "You review code.", messages: history, tools }));
      history.push({ role: "assistant", content: stop.content });
      if (stop.reason !== "tool_use") break;
      iterations++;
      const calls = stop.content.filter((b) => b.type === "tool_use");
      history.push({
        role: "user",
        content: calls.map((c) => ({
          type: "tool_result" as const,
          toolUseId: c.id,
          content: results[String(c.input.path ?? c.input.pattern)]!,
        })),
      });
    }

    expect(iterations).toBe(3);
    expect(history.at(-1)).toEqual({ role: "assistant", content: [{ type: "text", text: "Two TODOs remain." }] });
    expect(server.requests.map((r) => r.rule)).toEqual([0, 1, 2, 3]);
    const last = server.requests[3]!.body as {
      messages: Array<{ role: string; content: Array<Record<string, unknown>> }>;
    };
    expect(last.messages).toHaveLength(7);
    // Every tool_result answers the tool_use just before it.
    const prevCall = last.messages[5]!.content[0]!;
    expect(last.messages[6]!.content[0]).toMatchObject({
      type: "tool_result",
      tool_use_id: prevCall.id,
      content: "grep: 2 hits",
    });
    // The last block carries a breakpoint so the next iteration reads all of this from cache.
    expect(last.messages[6]!.content.at(-1)!.cache_control).toEqual({ type: "ephemeral" });
    expect(last.messages[4]!.content.at(-1)!.cache_control).toBeUndefined();
  });

  it("puts cache_control on the system prompt and the last tool definition", async () => {
    server.setScript([{ text: "ok" }]);
    await collect(
      clientFor(server, "anthropic").stream({ system: "You review code.", messages: [userText("hi")], tools }),
    );

    const body = server.requests[0]!.body as {
      system: Array<Record<string, unknown>>;
      tools: Array<Record<string, unknown>>;
    };
    expect(body.system).toEqual([{ type: "text", text: "You review code.", cache_control: { type: "ephemeral" } }]);
    expect(body.tools.map((t) => t.cache_control)).toEqual([undefined, { type: "ephemeral" }]);
  });

  it("stops with max_tokens and sends the clamped max_tokens", async () => {
    server.setScript([{ text: "This answer is cut", stopReason: "max_tokens" }]);
    const { stop } = await collect(
      clientFor(server, "anthropic").stream({ messages: [userText("long")], maxTokens: 5_000_000 }),
    );

    expect(stop).toMatchObject({ reason: "max_tokens", content: [{ type: "text", text: "This answer is cut" }] });
    expect(server.requests[0]!.body.max_tokens).toBe(128_000); // the model's max output, not 5M
  });

  it("drops a tool call that max_tokens cut in half instead of failing", async () => {
    server.setScript([
      { text: "Let me", toolCalls: [{ name: "read_file", arguments: '{"path": "sr' }], stopReason: "max_tokens" },
    ]);
    const { stop } = await collect(clientFor(server, "anthropic").stream({ messages: [userText("x")], tools }));
    expect(stop).toEqual({ type: "stop", reason: "max_tokens", content: [{ type: "text", text: "Let me" }] });
  });

  it("reports unparseable tool arguments as an error when the answer was not truncated", async () => {
    server.setScript([{ toolCalls: [{ name: "read_file", arguments: '{"path": ' }] }]);
    const { stop } = await collect(clientFor(server, "anthropic").stream({ messages: [userText("x")], tools }));
    expect(stop.error).toMatchObject({ kind: "invalid_response", retryable: false });
    expect(stop.error?.message).toContain('tool call "read_file"');
  });

  it("returns thinking blocks with their signature, in order, on the next request", async () => {
    server.setScript([
      {
        match: "start",
        thinking: "I should read a.ts first.",
        toolCalls: [{ id: "toolu_a", name: "read_file", input: { path: "a.ts" } }],
      },
      { match: "A", text: "Done." },
    ]);
    const client = clientFor(server, "anthropic");
    const first = await collect(client.stream({ messages: [userText("start")], tools }));
    expect(first.stop.content).toEqual([
      {
        type: "reasoning",
        provider: "anthropic",
        model: "claude-sonnet-5-5",
        text: "I should read a.ts first.",
        signature: signatureFor("I should read a.ts first."),
      },
      { type: "tool_use", id: "toolu_a", name: "read_file", input: { path: "a.ts" } },
    ]);
    const history: Message[] = [
      userText("start"),
      { role: "assistant", content: first.stop.content },
      { role: "user", content: [{ type: "tool_result", toolUseId: "toolu_a", content: "A" }] },
    ];
    await collect(client.stream({ messages: history, tools }));

    const sent = (server.requests[1]!.body as { messages: Array<{ content: unknown[] }> }).messages[1]!.content;
    expect(sent).toEqual([
      { type: "thinking", thinking: "I should read a.ts first.", signature: signatureFor("I should read a.ts first.") },
      { type: "tool_use", id: "toolu_a", name: "read_file", input: { path: "a.ts" } },
    ]);
    // Another model's thinking would be rejected by the API, so it is left out.
    server.setScript([{ text: "ok" }]);
    await collect(clientFor(server, "anthropic", { model: "claude-opus-5-5" }).stream({ messages: history, tools }));
    const other = (server.requests[2]!.body as { messages: Array<{ content: Array<{ type: string }> }> }).messages[1]!
      .content;
    expect(other.map((b) => b.type)).toEqual(["tool_use"]);
  });

  it("leaves temperature out and downgrades forced tool choice where the model rejects them", async () => {
    server.setScript([{ text: "ok" }]);
    await collect(
      clientFor(server, "anthropic").stream({
        messages: [userText("x")],
        tools,
        toolChoice: "required",
        reasoningEffort: "minimal",
      }),
    );
    await collect(
      clientFor(server, "anthropic", { model: "claude-haiku-4-5" }).stream({
        messages: [userText("x")],
        tools,
        toolChoice: { name: "grep" },
        reasoningEffort: "high",
      }),
    );

    const [sonnet, haiku] = server.requests.map((r) => r.body);
    expect(sonnet).not.toHaveProperty("temperature");
    expect(sonnet!.tool_choice).toEqual({ type: "auto" });
    expect(sonnet!.output_config).toEqual({ effort: "low" });
    expect(haiku!.temperature).toBe(0);
    expect(haiku!.tool_choice).toEqual({ type: "tool", name: "grep" });
    expect(haiku).not.toHaveProperty("output_config");
  });
});
