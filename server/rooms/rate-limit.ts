/**
 * A sliding-window rate limit per key (a user): at most `max` hits within `windowMs`. In memory, per
 * process — with several web nodes each holds its own count, so a user could reach max × nodes.
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

export interface RateLimiter {
  /** Counts a hit for the key, or throws RateLimited (counting nothing) when the window is full. */
  hit(key: string): void;
}

export function createRateLimiter(opts: {
  max: number;
  windowMs: number;
  /** The refusal's text for a wait of `seconds`. */
  message: (seconds: number) => string;
  now?: () => number;
}): RateLimiter {
  const now = opts.now ?? Date.now;
  const hits = new Map<string, number[]>();
  let sweeps = 0;
  return {
    hit(key) {
      const t = now();
      const recent = (hits.get(key) ?? []).filter((at) => at > t - opts.windowMs);
      if (recent.length >= opts.max) {
        const retryAfterMs = recent[0]! + opts.windowMs - t;
        hits.set(key, recent);
        throw new RateLimited(opts.message(Math.max(1, Math.ceil(retryAfterMs / 1000))), retryAfterMs);
      }
      recent.push(t);
      hits.set(key, recent);
      // Now and then forget keys whose window has passed, so the map does not grow with every user ever seen.
      if (++sweeps % 1000 === 0)
        for (const [k, list] of hits) if (list[list.length - 1]! <= t - opts.windowMs) hits.delete(k);
    },
  };
}
