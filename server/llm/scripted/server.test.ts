/**
 * The scripted server on its own: rule order and use counts, matching on the caller's latest turn,
 * recording, non-streaming JSON through the real SDKs, and the errors it gives when misused.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { lastUserText, parseScript } from "./script.ts";
import { type ScriptedServer, startScriptedServer } from "./server.ts";

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer({ script: [] });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const anthropic = () => new Anthropic({ apiKey: "k", baseURL: server.anthropicBaseURL, maxRetries: 0 });
const openai = () => new OpenAI({ apiKey: "k", baseURL: server.openaiBaseURL, maxRetries: 0 });

describe("scripted server", () => {
  it("answers non-streaming requests with JSON each SDK parses", async () => {
    server.setScript([
      {
        text: "plain answer",
        toolCalls: [{ id: "t1", name: "grep", input: { q: "x" } }],
        usage: { input: 10, output: 3 },
      },
    ]);
    const msg = await anthropic().messages.create({
      model: "claude-x",
      max_tokens: 100,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(msg.content).toEqual([
      { type: "text", text: "plain answer", citations: null },
      { type: "tool_use", id: "t1", name: "grep", input: { q: "x" } },
    ]);
    expect(msg.stop_reason).toBe("tool_use");
    expect(msg.usage.input_tokens).toBe(10);

    const resp = await openai().responses.create({ model: "gpt-x", input: "hi" });
    expect(resp.output_text).toBe("plain answer");
    expect(resp.output.at(-1)).toMatchObject({ type: "function_call", call_id: "t1", arguments: '{"q":"x"}' });

    const chat = await openai().chat.completions.create({
      model: "local",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(chat.choices[0]!.message).toMatchObject({
      content: "plain answer",
      tool_calls: [{ id: "t1", function: { name: "grep", arguments: '{"q":"x"}' } }],
    });
    expect(chat.choices[0]!.finish_reason).toBe("tool_calls");
  });

  it("uses the first matching rule with uses left, matching substrings, regexes, api and model", async () => {
    server.setScript([
      { match: "/^deploy\\b/i", times: 1, text: "first" },
      { match: "deploy", api: "chat", text: "chat only" },
      { match: "deploy", model: "special", text: "special" },
      { text: "fallback" },
    ]);
    const ask = async (model: string, text: string) =>
      (await openai().chat.completions.create({ model, messages: [{ role: "user", content: text }] })).choices[0]!
        .message.content;
    const askResponses = async (model: string, text: string) =>
      (await openai().responses.create({ model, input: text })).output_text;

    expect(await ask("m", "Deploy now")).toBe("first");
    expect(await ask("m", "deploy now")).toBe("chat only");
    expect(await askResponses("special", "please deploy")).toBe("special");
    expect(await askResponses("m", "please deploy")).toBe("fallback");
    expect(server.requests.map((r) => [r.api, r.rule])).toEqual([
      ["chat", 0],
      ["chat", 1],
      ["responses", 2],
      ["responses", 3],
    ]);
  });

  it("answers an unmatched request with a 400 that quotes the content, and records it", async () => {
    server.setScript([{ match: "never", text: "x" }]);
    await expect(
      anthropic().messages.create({
        model: "m",
        max_tokens: 5,
        messages: [{ role: "user", content: "something else" }],
      }),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/no rule matches the last user content .*something else/),
    });
    expect(server.requests[0]).toMatchObject({
      api: "anthropic",
      path: "/v1/messages",
      rule: -1,
      lastUserText: "something else",
    });
  });

  it("lists models for connection checks", async () => {
    server.setScript([{ model: "qwen3:8b", text: "x" }]);
    const list = await openai().models.list();
    expect(list.data.map((m) => m.id)).toEqual(["qwen3:8b"]);
  });

  it("reads the caller's latest turn in each format, tool results included", () => {
    expect(
      lastUserText("anthropic", {
        messages: [
          { role: "user", content: "old" },
          { role: "assistant", content: [{ type: "tool_use" }] },
          {
            role: "user",
            content: [
              { type: "tool_result", content: [{ type: "text", text: "result A" }] },
              { type: "text", text: "and B" },
            ],
          },
        ],
      }),
    ).toBe("result A\nand B");
    expect(
      lastUserText("responses", {
        input: [
          { role: "user", content: "old" },
          { type: "function_call", call_id: "c" },
          { type: "function_call_output", call_id: "c", output: "out" },
        ],
      }),
    ).toBe("out");
    expect(
      lastUserText("chat", {
        messages: [
          { role: "assistant", content: "q" },
          { role: "tool", content: "t1" },
          { role: "tool", content: "t2" },
        ],
      }),
    ).toBe("t1\nt2");
  });

  it("rejects a malformed script with the offending field", () => {
    expect(() => parseScript({ rules: [{ status: 200 }] })).toThrow(/status/);
    expect(() => parseScript({ rules: [{ toolCalls: [{ input: {} }] }] })).toThrow(/name/);
  });
});
