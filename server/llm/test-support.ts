/**
 * Shared by the tests in server/llm: a scripted server per test file, clients for each provider
 * pointed at it with tiny retry delays, a collector for stream events, and two tool definitions.
 */
import { afterAll, beforeEach } from "vitest";
import { type LlmClient, type LlmClientOptions, createLlmClient } from "./client.ts";
import { type ScriptedServer, startScriptedServer } from "./scripted/server.ts";
import type { ScriptInput } from "./scripted/script.ts";
import type { ProviderId, StopEvent, StreamEvent, ToolDefinition } from "./types.ts";

export const MODEL: Record<ProviderId, string> = {
  anthropic: "claude-sonnet-5-5",
  openai: "gpt-5.4",
  "openai-compatible": "qwen3:8b",
};

export function startServer(script: ScriptInput = { rules: [] }): Promise<ScriptedServer> {
  return startScriptedServer({ script });
}

/**
 * One scripted server for the whole test file (await it at the top level): requests and rule uses are
 * reset before each test, and the server is closed after the last.
 */
export async function scriptedServerForFile(script?: ScriptInput): Promise<ScriptedServer> {
  const server = await startServer(script);
  afterAll(() => server.close());
  beforeEach(() => server.reset());
  return server;
}

export const READ_FILE_TOOL: ToolDefinition = {
  name: "read_file",
  description: "Read a file",
  inputSchema: {
    type: "object",
    properties: { path: { type: "string" }, start: { type: "integer" } },
    required: ["path"],
  },
};

export const GREP_TOOL: ToolDefinition = {
  name: "grep",
  description: "Search",
  inputSchema: { type: "object", properties: { pattern: { type: "string" } }, required: ["pattern"] },
};

export function clientFor(
  server: ScriptedServer,
  provider: ProviderId,
  extra: Partial<LlmClientOptions> = {},
): LlmClient {
  return createLlmClient({
    provider,
    model: MODEL[provider],
    apiKey: "test-key",
    baseURL: provider === "anthropic" ? server.anthropicBaseURL : server.openaiBaseURL,
    maxRetries: 3,
    retryBaseDelayMs: 1,
    retryMaxDelayMs: 5,
    requestTimeoutMs: 5000,
    idleTimeoutMs: 5000,
    ...extra,
  });
}

export async function collect(
  stream: AsyncIterable<StreamEvent>,
): Promise<{ events: StreamEvent[]; stop: StopEvent; text: string }> {
  const events: StreamEvent[] = [];
  for await (const ev of stream) events.push(ev);
  const stop = events.at(-1);
  if (stop?.type !== "stop") throw new Error(`stream did not end with stop: ${JSON.stringify(events.at(-1))}`);
  const text = events.map((e) => (e.type === "text_delta" ? e.text : "")).join("");
  return { events, stop, text };
}
