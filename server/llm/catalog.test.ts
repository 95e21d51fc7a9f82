import { describe, expect, it } from "vitest";
import { MODELS, PROVIDER_INFO, costUsd, mapReasoningEffort, modelInfo } from "./catalog.ts";

describe("catalog", () => {
  it("has a default model in the catalog for each hosted provider", () => {
    for (const p of ["anthropic", "openai"] as const)
      expect(modelInfo(p, PROVIDER_INFO[p].defaultModel!).known).toBe(true);
    expect(new Set(MODELS.map((m) => `${m.provider}/${m.id}`)).size).toBe(MODELS.length);
  });

  it("resolves dated snapshots to their family and guesses unknown models conservatively", () => {
    expect(modelInfo("openai", "gpt-5.4-2026-03-05")).toMatchObject({
      id: "gpt-5.4-2026-03-05",
      known: true,
      contextWindow: 1_050_000,
    });
    const claude = modelInfo("anthropic", "claude-sonnet-7");
    expect(claude).toMatchObject({ known: false, pricing: undefined, reasoningEfforts: [] });
    expect(claude.capabilities.temperature).toBe(false);
    expect(modelInfo("openai", "gpt-7-mini").capabilities.temperature).toBe(false);
    expect(modelInfo("openai-compatible", "qwen3:8b").capabilities).toMatchObject({ temperature: true, images: false });
  });

  it("maps a neutral reasoning effort to the nearest one the model accepts", () => {
    expect(mapReasoningEffort(modelInfo("openai", "gpt-5.4"), "minimal")).toBe("none");
    expect(mapReasoningEffort(modelInfo("openai", "gpt-5.4"), "high")).toBe("high");
    expect(mapReasoningEffort(modelInfo("anthropic", "claude-sonnet-5-5"), "none")).toBe("low");
    expect(mapReasoningEffort(modelInfo("anthropic", "claude-haiku-4-5"), "high")).toBeUndefined();
    expect(mapReasoningEffort(modelInfo("openai", "gpt-5.4"), undefined)).toBeUndefined();
  });

  it("prices cache reads and writes apart, and the long-prompt tier on the whole request", () => {
    const sonnet = modelInfo("anthropic", "claude-sonnet-5-5").pricing;
    expect(
      costUsd({ inputTokens: 1_000_000, outputTokens: 0, cacheReadTokens: 500_000, cacheWriteTokens: 250_000 }, sonnet),
    ).toBeCloseTo(0.5 + 0.05 + 0.625, 9);
    const gpt = modelInfo("openai", "gpt-5.4").pricing;
    expect(
      costUsd({ inputTokens: 100_000, outputTokens: 1_000_000, cacheReadTokens: 0, cacheWriteTokens: 0 }, gpt),
    ).toBeCloseTo(0.25 + 15, 9);
    expect(
      costUsd({ inputTokens: 300_000, outputTokens: 1_000_000, cacheReadTokens: 0, cacheWriteTokens: 0 }, gpt),
    ).toBeCloseTo(0.75 * 2 + 15 * 1.5, 9);
    expect(
      costUsd({ inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 }, undefined),
    ).toBeUndefined();
  });
});
