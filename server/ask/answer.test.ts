/**
 * A provider's failure as a thread shows it: answerQuestion over the demo project against the
 * scripted server, failing the way real providers do (401, 429, a stream that goes silent). The
 * answer comes back with the error in words and what to do next — never as an exception.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../config.ts";
import { createIndexCache } from "../retrieval/store/index.ts";
import { codeSearchFor } from "../agent/index.ts";
import type { LlmClientOptions } from "../llm/index.ts";
import { scriptedServerForFile } from "../llm/test-support.ts";
import { DEMO_DIR } from "../review/index.ts";
import { answerQuestion } from "./answer.ts";
import { NO_INDEX_TEXT } from "./search-answer.ts";

const llm = await scriptedServerForFile();

const anthropic = (extra: Partial<LlmClientOptions> = {}): LlmClientOptions => ({
  provider: "anthropic",
  model: "claude-sonnet-4-5",
  apiKey: "sk-test",
  baseURL: llm.url,
  maxRetries: 0,
  temperature: 0,
  maxTokens: 1024,
  requestTimeoutMs: 5000,
  idleTimeoutMs: 300_000,
  retryBaseDelayMs: 0,
  retryMaxDelayMs: 0,
  maxRetryAfterMs: 0,
  toolMode: "native",
  ...extra,
});

const ask = (options: LlmClientOptions) => answerQuestion({ root: DEMO_DIR, llm: options, question: "Is it fine?" });

describe("a provider's failure, in words", () => {
  it("401: check the API key in Settings → Model providers", async () => {
    llm.setScript([{ status: 401, message: "invalid x-api-key" }]);
    const out = await ask(anthropic());
    expect(out.error).toMatch(/^The model provider refused the request \(401\): check the API key in Settings/);
    expect(out.error).toContain("invalid x-api-key");
    expect(out.mode).toBe("model");
  });

  it("429: rate limited, ask again in a minute", async () => {
    llm.setScript([{ status: 429, message: "slow down", retryAfter: 0 }]);
    const out = await ask(anthropic());
    expect(out.error).toMatch(/^The model provider is rate limiting requests \(429\); ask again in a minute/);
  });

  it("a stream that goes silent: the model did not answer in time", async () => {
    llm.setScript([{ text: "Partly", stallAfter: 2 }]);
    const out = await ask(anthropic({ idleTimeoutMs: 300 }));
    expect(out.error).toMatch(/^The model did not answer in time; ask again\./);
  });

  it("a provider that is down (5xx): its error, and to ask again", async () => {
    llm.setScript([{ status: 503, message: "overloaded" }]);
    const out = await ask(anthropic());
    expect(out.error).toMatch(/^The model provider had an error \(503\); ask again\./);
  });

  it("advice follows the error's kind, not its wording: a 400 that mentions a 429 and a timeout is quoted as is", async () => {
    llm.setScript([{ status: 400, message: "auth header fine; rate limit 429 timed out earlier" }]);
    const out = await ask(anthropic());
    expect(out.error).toMatch(/^anthropic \(claude-sonnet-4-5\) 400: /);
    expect(out.error).toContain("rate limit 429 timed out earlier");
    expect(out.error).not.toMatch(/ask again|check the API key/);
  });

  it("a provider that cannot be reached: check its address, or ask again", async () => {
    const out = await ask(anthropic({ baseURL: "http://127.0.0.1:9" }));
    expect(out.error).toMatch(/^Argus could not reach the model provider; check its address in Settings/);
  });
});

describe("no model and no search index", () => {
  it("says what is missing and the ways out, not the search tool's refusal meant for a model", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "argus-ask-noindex-"));
    const indexes = createIndexCache(dir);
    try {
      const out = await answerQuestion({
        root: DEMO_DIR,
        llm: null,
        question: "where are passwords hashed?",
        searchCode: codeSearchFor(loadConfig({ DATA_DIR: dir, NODE_ENV: "test" }), indexes, "no-such-snapshot"),
      });
      expect(out).toMatchObject({ mode: "search", text: NO_INDEX_TEXT, hits: [], citations: [] });
      expect(out.text).toContain("Settings → Model providers");
      expect(out.text).toContain("import the code again");
      expect(out.text).not.toContain("search_code");
      expect(out.error).toBeUndefined();
    } finally {
      await indexes.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
