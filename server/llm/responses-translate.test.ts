/**
 * The neutral history ↔ Responses input items, on a long history with parallel tool calls, images,
 * errors and several rounds: it must come back unchanged, both directly and after the real SDK has
 * sent it over the wire.
 */
import { describe, expect, it } from "vitest";
import { fromResponsesInput, fromResponsesOutput, toResponsesInput } from "./responses-translate.ts";
import { clientFor, collect, startServer } from "./test-support.ts";
import type { Message } from "./types.ts";

const png = { kind: "base64" as const, mediaType: "image/png", data: "iVBORw0KGgo=" };

/** Eight rounds: text, parallel calls, an error result, images in a message and in a tool result. */
export const longHistory: Message[] = [
  {
    role: "user",
    content: [
      { type: "text", text: "Review PR #42." },
      { type: "image", source: png },
      { type: "text", text: "Screenshot above." },
    ],
  },
  {
    role: "assistant",
    content: [
      { type: "text", text: "I'll read the changed files." },
      { type: "tool_use", id: "call_1", name: "read_file", input: { path: "src/a.ts" } },
      { type: "tool_use", id: "call_2", name: "read_file", input: { path: "src/b.ts", range: [1, 40] } },
    ],
  },
  {
    role: "user",
    content: [
      { type: "tool_result", toolUseId: "call_1", content: "export const a = 1;\n" },
      { type: "tool_result", toolUseId: "call_2", content: "ENOENT: src/b.ts", isError: true },
    ],
  },
  {
    role: "assistant",
    content: [{ type: "tool_use", id: "call_3", name: "list_files", input: { dir: "src", recursive: true } }],
  },
  { role: "user", content: [{ type: "tool_result", toolUseId: "call_3", content: "src/a.ts\nsrc/c.ts" }] },
  { role: "assistant", content: [{ type: "tool_use", id: "call_4", name: "read_file", input: { path: "src/c.ts" } }] },
  {
    role: "user",
    content: [
      {
        type: "tool_result",
        toolUseId: "call_4",
        content: [
          { type: "text", text: "rendered:" },
          { type: "image", source: { kind: "url", url: "https://example.com/c.png" } },
        ],
      },
    ],
  },
  {
    role: "assistant",
    content: [
      { type: "text", text: "Checking usages." },
      { type: "tool_use", id: "call_5", name: "grep", input: { pattern: "a\\b", flags: { ignoreCase: false } } },
    ],
  },
  {
    role: "user",
    content: [
      { type: "tool_result", toolUseId: "call_5", content: [{ type: "text", text: "src/c.ts:3" }], isError: true },
    ],
  },
  { role: "assistant", content: [{ type: "tool_use", id: "call_6", name: "read_file", input: {} }] },
  {
    role: "user",
    content: [
      { type: "tool_result", toolUseId: "call_6", content: "" },
      { type: "text", text: "Also check the tests, please." },
    ],
  },
  {
    role: "assistant",
    content: [
      { type: "text", text: "Two findings: " },
      { type: "text", text: "b.ts is missing; c.ts shadows a." },
    ],
  },
  { role: "user", content: [{ type: "text", text: "Thanks!" }] },
];

describe("Responses translation", () => {
  it("maps each block to the right item kind, in order", () => {
    const items = toResponsesInput(longHistory);
    expect(items.slice(0, 4)).toEqual([
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "Review PR #42." },
          { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=", detail: "auto" },
          { type: "input_text", text: "Screenshot above." },
        ],
      },
      { type: "message", role: "assistant", content: "I'll read the changed files." },
      { type: "function_call", call_id: "call_1", name: "read_file", arguments: '{"path":"src/a.ts"}' },
      { type: "function_call", call_id: "call_2", name: "read_file", arguments: '{"path":"src/b.ts","range":[1,40]}' },
    ]);
    expect(items[5]).toEqual({
      type: "function_call_output",
      call_id: "call_2",
      output: "[tool error] ENOENT: src/b.ts",
    });
    expect(items.filter((i) => i.type === "function_call")).toHaveLength(6);
    expect(items.filter((i) => i.type === "function_call_output")).toHaveLength(6);
    expect(items.every((i) => !("id" in i))).toBe(true); // no item ids: stateless requests
  });

  it("round-trips a long multi-tool history unchanged", () => {
    expect(fromResponsesInput(toResponsesInput(longHistory))).toEqual(longHistory);
  });

  it("round-trips through the real SDK and the wire", async () => {
    const server = await startServer([{ text: "ok" }]);
    try {
      await collect(clientFor(server, "openai").stream({ system: "sys", messages: longHistory }));
      const sent = server.requests[0]!.body.input as Parameters<typeof fromResponsesInput>[0];
      expect(fromResponsesInput(sent)).toEqual(longHistory);
      expect(server.requests[0]!.lastUserText).toBe("Thanks!");
    } finally {
      await server.close();
    }
  });

  it("reads a completed response's output items back as the assistant turn", () => {
    const output = [
      { id: "rs_1", type: "reasoning", summary: [] },
      {
        id: "msg_1",
        type: "message",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "Looking.", annotations: [] }],
      },
      {
        id: "fc_1",
        type: "function_call",
        call_id: "call_9",
        name: "grep",
        arguments: '{"pattern":"x"}',
        status: "completed",
      },
    ] as unknown as Parameters<typeof fromResponsesOutput>[0];
    expect(fromResponsesOutput(output)).toEqual([
      { type: "text", text: "Looking." },
      { type: "tool_use", id: "call_9", name: "grep", input: { pattern: "x" } },
    ]);
  });

  it("leaves reasoning blocks out: they cannot be replayed to OpenAI", () => {
    const items = toResponsesInput([
      {
        role: "assistant",
        content: [
          { type: "reasoning", provider: "anthropic", model: "m", text: "hmm", signature: "s" },
          { type: "text", text: "hi" },
        ],
      },
    ]);
    expect(items).toEqual([{ type: "message", role: "assistant", content: "hi" }]);
  });
});
