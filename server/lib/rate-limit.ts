/**
 * A sliding-window rate limit per key (a user): at most `max` hits within `windowMs`. Where the
 * counts live is a store: in memory, per process (the embedded default), or in Redis shared by every
 * node (server/cluster/rate-limit-store.ts) — there a user's limit is the same whichever node their
 * sockets reach, instead of max × nodes.
 */
export class RateLimited extends Error {
  constructor(
    message: string,
    /** When the next hit will be allowed. */
    readonly retryAfterMs: number,
  ) {
    super(message);
    this.name = "RateLimited";
  }
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterMs: number };

export interface RateLimitStore {
  /** Counts a hit for the key unless `max` are within the window already (then counts nothing). */
  consume(key: string, rule: { max: number; windowMs: number }): Promise<RateDecision>;
}

export interface RateLimiter {
  /** Counts a hit for the key, or throws RateLimited (counting nothing) when the window is full. */
  hit(key: string): Promise<void>;
}

/** Counts in this process's memory. */
export function memoryRateLimitStore(now: () => number = Date.now): RateLimitStore {
  const hits = new Map<string, number[]>();
  let sweeps = 0;
  return {
    async consume(key, { max, windowMs }) {
      const t = now();
      const recent = (hits.get(key) ?? []).filter((at) => at > t - windowMs);
      if (recent.length >= max) {
        hits.set(key, recent);
        return { allowed: false, retryAfterMs: recent[0]! + windowMs - t };
      }
      recent.push(t);
      hits.set(key, recent);
      // Now and then forget keys whose window has passed, so the map does not grow with every user ever seen.
      if (++sweeps % 1000 === 0)
        for (const [k, list] of hits) if (list[list.length - 1]! <= t - windowMs) hits.delete(k);
      return { allowed: true };
    },
  };
}

export function createRateLimiter(opts: {
  max: number;
  windowMs: number;
  /** The refusal's text for a wait of `seconds`. */
  message: (seconds: number) => string;
  /** Counts of this process (default), or a shared store; `name` keeps limiters apart in a shared one. */
  store?: RateLimitStore;
  name?: string;
  now?: () => number;
}): RateLimiter {
  const store = opts.store ?? memoryRateLimitStore(opts.now);
  const rule = { max: opts.max, windowMs: opts.windowMs };
  return {
    async hit(key) {
      const decision = await store.consume(opts.name ? `${opts.name}:${key}` : key, rule);
      if (!decision.allowed)
        throw new RateLimited(
          opts.message(Math.max(1, Math.ceil(decision.retryAfterMs / 1000))),
          decision.retryAfterMs,
        );
    },
  };
}
