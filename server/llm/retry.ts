/**
 * Our own retry policy. The SDKs run with maxRetries 0 so that every provider backs off the same way
 * and tests can shrink the delays: exponential backoff with jitter on 429 / 5xx / network / timeout,
 * the provider's retry-after honoured, nothing retried on other 4xx.
 */
import type { LlmError } from "./errors.ts";

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A retry-after longer than this is not waited for: the error is returned instead. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxRetries: 4,
  baseDelayMs: 1000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 120_000,
};

/** Milliseconds to wait before attempt `attempt + 1`, or undefined when the error must not be retried. */
export function retryDelay(
  error: LlmError,
  attempt: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number | undefined {
  if (!error.retryable || attempt >= policy.maxRetries) return undefined;
  if (error.retryAfterMs !== undefined) {
    return error.retryAfterMs <= policy.maxRetryAfterMs ? error.retryAfterMs : undefined;
  }
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  // Jitter between half and all of the step, so many jobs hitting one limit do not retry in lockstep.
  return Math.round(exp * (0.5 + random() * 0.5));
}

/** Resolves after ms, or rejects as soon as the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
