import { describe, expect, it } from "vitest";
import { z } from "zod";
import { clientOptionsFromSettings, createLlmClientFromSettings, llmEnvShape, llmSettingsFromEnv } from "./settings.ts";

const parse = (env: Record<string, string>) => llmSettingsFromEnv(z.object(llmEnvShape).parse(env));

describe("settings", () => {
  it("defaults: anthropic, temperature 0, 16384 max tokens, the catalog's default model", () => {
    const s = parse({ ANTHROPIC_API_KEY: "k" });
    expect(s).toMatchObject({ provider: "anthropic", temperature: 0, maxTokens: 16384, maxRetries: 4 });
    const client = createLlmClientFromSettings(s);
    expect(client.model).toBe("claude-sonnet-5-5");
  });

  it("picks the provider's key and base URL, and coerces numbers from strings", () => {
    const s = parse({
      LLM_PROVIDER: "openai-compatible",
      LLM_MODEL: "qwen3:8b",
      LLM_TEMPERATURE: "0.3",
      LLM_MAX_TOKENS: "4096",
      OPENAI_API_KEY: "sk-openai",
      OPENAI_COMPATIBLE_BASE_URL: "http://localhost:11434/v1",
      OPENAI_COMPATIBLE_TOOL_MODE: "json",
    });
    expect(clientOptionsFromSettings(s)).toEqual({
      provider: "openai-compatible",
      model: "qwen3:8b",
      temperature: 0.3,
      maxTokens: 4096,
      requestTimeoutMs: 120_000,
      idleTimeoutMs: 300_000,
      maxRetries: 4,
      baseURL: "http://localhost:11434/v1",
      toolMode: "json",
    });
    // Another configured provider uses its own default model, not LLM_MODEL.
    expect(clientOptionsFromSettings(s, "openai")).toMatchObject({ provider: "openai", apiKey: "sk-openai" });
    expect(clientOptionsFromSettings(s, "openai")).not.toHaveProperty("model");
  });

  it("rejects bad values with the variable's expectation", () => {
    const r = z.object(llmEnvShape).safeParse({ LLM_TEMPERATURE: "hot", OPENAI_BASE_URL: "not a url" });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path[0])).toEqual(["LLM_TEMPERATURE", "OPENAI_BASE_URL"]);
  });

  it("refuses to build a client without a key or a model", () => {
    expect(() => createLlmClientFromSettings(parse({ LLM_PROVIDER: "openai" }))).toThrow(
      "openai (gpt-5.4): no API key (set OPENAI_API_KEY)",
    );
    expect(() => createLlmClientFromSettings(parse({ LLM_PROVIDER: "openai-compatible" }))).toThrow(
      "no model configured",
    );
    expect(() => createLlmClientFromSettings(parse({ LLM_PROVIDER: "openai-compatible", LLM_MODEL: "m" }))).toThrow(
      "needs a base URL",
    );
  });
});
