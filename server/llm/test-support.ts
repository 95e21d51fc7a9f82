/**
 * Shared by the tests in server/llm: a scripted server per test file, clients for each provider
 * pointed at it with tiny retry delays, and a collector for stream events.
 */
import { type LlmClient, type LlmClientOptions, createLlmClient } from "./client.ts";
import { type ScriptedServer, startScriptedServer } from "./scripted/server.ts";
import type { ScriptInput } from "./scripted/script.ts";
import type { ProviderId, StopEvent, StreamEvent } from "./types.ts";

export const MODEL: Record<ProviderId, string> = {
  anthropic: "claude-sonnet-5-5",
  openai: "gpt-5.4",
  "openai-compatible": "qwen3:8b",
};

export function startServer(script: ScriptInput = { rules: [] }): Promise<ScriptedServer> {
  return startScriptedServer({ script });
}

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
