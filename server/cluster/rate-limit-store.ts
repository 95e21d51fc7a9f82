/**
 * Rate limits shared by every node: one sorted set per key (`<prefix>:rate:<limiter>:<user>`), hits
 * scored by Redis's own clock (nodes' clocks may differ), trimmed to the window and counted in one
 * script, so the check and the count are one atomic step even when a user's requests reach several
 * nodes at once. The same store counts better-auth's sign-in limits (server/auth/auth.ts).
 *
 * While Redis is away the limits fall back to this process's own counts (a user could then reach the
 * limit once per node), rather than refusing everyone or hanging the request.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "../logger.ts";
import { memoryRateLimitStore, type RateDecision, type RateLimitStore } from "../lib/rate-limit.ts";
import type { RedisLink } from "./redis.ts";

// KEYS[1] the key; ARGV: window (ms), max, a unique member. Returns {1, 0} or {0, retry-after ms}.
const SLIDING_WINDOW = `
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local window = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, tonumber(oldest[2]) + window - now}
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
return {1, 0}
`;

export function redisRateLimitStore(redis: RedisLink, log: Logger): RateLimitStore {
  const fallback = memoryRateLimitStore();
  let warned = 0;
  return {
    async consume(key, rule): Promise<RateDecision> {
      try {
        const [allowed, retryAfterMs] = (await redis.fast.eval(
          SLIDING_WINDOW,
          1,
          redis.key("rate", key),
          rule.windowMs,
          rule.max,
          randomUUID(),
        )) as [number, number];
        return allowed === 1 ? { allowed: true } : { allowed: false, retryAfterMs: Math.max(1, retryAfterMs) };
      } catch (err) {
        if (Date.now() - warned > 60_000) {
          warned = Date.now();
          log.warn({ err: (err as Error).message }, "rate limits: Redis unreachable, counting in this process");
        }
        return fallback.consume(key, rule);
      }
    },
  };
}
