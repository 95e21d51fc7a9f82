/**
 * GitHub's rate limits, honoured rather than fought: a 429, or a 403 that is a secondary rate limit
 * (it carries `retry-after`) or an exhausted primary one (`x-ratelimit-remaining: 0`), waits as long
 * as GitHub asks and tries again — up to MAX_ATTEMPTS, and never longer than MAX_WAIT_MS at a time
 * (past that the request fails and the job's caller decides; nothing is silently dropped).
 * Installed on every Octokit as a plugin wrapping its `request` hook.
 */
import type { Octokit } from "@octokit/core";
import type { Logger } from "../../logger.ts";

const MAX_ATTEMPTS = 4;
const MAX_WAIT_MS = 120_000;
/** GitHub's advice for a secondary limit without retry-after: wait at least a minute. */
const SECONDARY_DEFAULT_MS = 60_000;

interface HttpErrorLike {
  status?: number;
  response?: { headers?: Record<string, string | number | undefined> };
}

/** How long to wait before trying again, or null when the error is not a rate limit. */
export function rateLimitWaitMs(err: unknown, now = Date.now()): number | null {
  const e = err as HttpErrorLike;
  if (e.status !== 429 && e.status !== 403) return null;
  const headers = e.response?.headers ?? {};
  const retryAfter = headers["retry-after"];
  if (retryAfter !== undefined && retryAfter !== "") {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const at = Date.parse(String(retryAfter));
    if (!Number.isNaN(at)) return Math.max(0, at - now);
  }
  if (String(headers["x-ratelimit-remaining"]) === "0" && headers["x-ratelimit-reset"] !== undefined)
    return Math.max(0, Number(headers["x-ratelimit-reset"]) * 1000 - now);
  return e.status === 429 ? SECONDARY_DEFAULT_MS : null;
}

export function rateLimitPlugin(log: Logger, sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))) {
  return (octokit: Octokit) => {
    octokit.hook.wrap("request", async (request, options) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await request(options);
        } catch (err) {
          const wait = rateLimitWaitMs(err);
          if (wait === null || attempt >= MAX_ATTEMPTS || wait > MAX_WAIT_MS) throw err;
          log.warn(
            { method: options.method, route: options.url, waitMs: wait, attempt },
            "GitHub rate limit: waiting as asked before trying again",
          );
          await sleep(wait);
        }
      }
    });
  };
}
