/**
 * The client's own contract, independent of any wire format: complete(), error surfacing, and what
 * happens when an adapter misbehaves.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLlmClient } from "./client.ts";
import { LlmError } from "./errors.ts";
import type { ProviderAdapter } from "./provider.ts";
import type { ScriptedServer } from "./scripted/server.ts";
import { clientFor, collect, startServer } from "./test-support.ts";
import { type ProviderEvent, userText } from "./types.ts";

let server: ScriptedServer;
beforeAll(async () => {
  server = await startServer([
    {
      match: "tool",
      text: "Calling.",
      toolCalls: [{ id: "c1", name: "grep", input: { pattern: "x" } }],
      usage: { input: 50, output: 5 },
    },
    { match: "fail", status: 400, message: "max_tokens: too large" },
  ]);
});
afterAll(() => server.close());

const fake = (events: ProviderEvent[] | (() => never)): ProviderAdapter => ({
  provider: "openai-compatible",
  async *stream() {
    if (typeof events === "function") events();
    else yield* events;
  },
});
const withAdapter = (adapter: ProviderAdapter) =>
  createLlmClient({ provider: "openai-compatible", model: "m", baseURL: "http://127.0.0.1:1/v1" }, { adapter });

describe("client", () => {
  it("complete() collects the turn, tool calls and usage", async () => {
    const r = await clientFor(server, "openai").complete({
      messages: [userText("tool please")],
      tools: [{ name: "grep", description: "", inputSchema: { type: "object" } }],
    });
    expect(r).toMatchObject({
      text: "Calling.",
      stopReason: "tool_use",
      toolUses: [{ id: "c1", name: "grep", input: { pattern: "x" } }],
      usage: { inputTokens: 50, outputTokens: 5 },
    });
    expect(r.costUsd).toBeCloseTo((50 * 2.5 + 5 * 15) / 1e6, 12);
  });

  it("complete() throws an LlmError carrying the provider's message", async () => {
    const e = await clientFor(server, "anthropic")
      .complete({ messages: [userText("fail")] })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(LlmError);
    expect(e).toMatchObject({
      kind: "bad_request",
      status: 400,
      provider: "anthropic",
      retryable: false,
      message: "anthropic (claude-sonnet-5-5) 400: max_tokens: too large",
    });
  });

  it("lets a bug in an adapter surface as itself, not as a provider error", async () => {
    const client = withAdapter(
      fake(() => {
        throw new RangeError("bug in translation");
      }),
    );
    await expect(collect(client.stream({ messages: [userText("x")] }))).rejects.toThrow(RangeError);
  });

  it("estimates usage when the provider reports none, and merges partial usage reports", async () => {
    const quiet = await collect(
      withAdapter(
        fake([
          { type: "text_delta", text: "12345678" },
          { type: "stop", reason: "end_turn" },
        ]),
      ).stream({ messages: [userText("abcd")] }),
    );
    expect(quiet.events[1]).toEqual({
      type: "usage",
      usage: { inputTokens: 1, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 },
      estimated: true,
    });

    const split = await collect(
      withAdapter(
        fake([
          { type: "usage", usage: { inputTokens: 9, cacheReadTokens: 4 } },
          { type: "usage", usage: { outputTokens: 3 } },
          { type: "stop", reason: "end_turn" },
        ]),
      ).stream({ messages: [userText("x")] }),
    );
    expect(split.events[0]).toEqual({
      type: "usage",
      usage: { inputTokens: 9, outputTokens: 3, cacheReadTokens: 4, cacheWriteTokens: 0 },
    });
  });

  it("validates the request shape before calling anyone", async () => {
    await expect(collect(withAdapter(fake([])).stream({ messages: [] }))).rejects.toThrow(/messages/);
  });
});
