import { describe, expect, it } from "vitest";
import { LlmError, classifyError, retryAfterMs } from "./errors.ts";
import { DEFAULT_RETRY, retryDelay, sleep } from "./retry.ts";

const err = (kind: ConstructorParameters<typeof LlmError>[0]["kind"], retryAfter?: number) =>
  new LlmError({
    kind,
    provider: "anthropic",
    model: "m",
    detail: "x",
    ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter }),
  });

describe("retry policy", () => {
  it("retries 429 / 5xx / network / timeout only", () => {
    for (const kind of ["rate_limit", "server", "network", "timeout"] as const)
      expect(retryDelay(err(kind), 0, DEFAULT_RETRY)).toBeGreaterThan(0);
    for (const kind of ["auth", "bad_request", "aborted", "invalid_response", "budget_exceeded"] as const)
      expect(retryDelay(err(kind), 0, DEFAULT_RETRY)).toBeUndefined();
  });

  it("backs off exponentially with jitter, capped, and stops after maxRetries", () => {
    const p = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000, maxRetries: 5 };
    expect(retryDelay(err("server"), 0, p, () => 0)).toBe(50);
    expect(retryDelay(err("server"), 2, p, () => 1)).toBe(400);
    expect(retryDelay(err("server"), 4, p, () => 1)).toBe(1000);
    expect(retryDelay(err("server"), 5, p)).toBeUndefined();
  });

  it("honours retry-after exactly, but not beyond maxRetryAfterMs", () => {
    expect(retryDelay(err("rate_limit", 7000), 0, DEFAULT_RETRY)).toBe(7000);
    expect(retryDelay(err("rate_limit", 10 * 60_000), 0, DEFAULT_RETRY)).toBeUndefined();
  });

  it("reads retry-after-ms, seconds and HTTP dates", () => {
    expect(retryAfterMs(new Headers({ "retry-after-ms": "250", "retry-after": "9" }))).toBe(250);
    expect(retryAfterMs(new Headers({ "retry-after": "1.5" }))).toBe(1500);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:03 GMT" }), now)).toBe(3000);
    expect(retryAfterMs(new Headers({ "retry-after": "soon" }))).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });

  it("sleep rejects as soon as the signal aborts", async () => {
    const c = new AbortController();
    const started = Date.now();
    setTimeout(() => c.abort(new Error("stop")), 10);
    await expect(sleep(5000, c.signal)).rejects.toThrow("stop");
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe("classifyError", () => {
  it("rethrows what is not a provider failure, so bugs keep their stack", () => {
    expect(() => classifyError(new RangeError("oops"), "openai", "m", false)).toThrow("oops");
  });

  it("treats anything after the caller aborted as a cancellation", () => {
    expect(classifyError(new Error("whatever"), "openai", "m", true).kind).toBe("aborted");
  });
});
