import { describe, expect, it } from "vitest";
import { createRateLimiter, RateLimited } from "./rate-limit.ts";

describe("rate limiter", () => {
  it("allows max hits per window, then refuses with when to retry; the window slides", () => {
    let t = 1000;
    const limiter = createRateLimiter({ max: 3, windowMs: 5000, now: () => t, message: (s) => `wait ${s} s` });
    limiter.hit("u");
    t += 1000;
    limiter.hit("u");
    limiter.hit("u");
    limiter.hit("other"); // keys are apart
    t += 500;
    let refused: unknown;
    try {
      limiter.hit("u");
    } catch (e) {
      refused = e;
    }
    expect(refused).toBeInstanceOf(RateLimited);
    // The first hit (t=1000) leaves the window at t=6000; it is 2500 now.
    expect(refused).toMatchObject({ message: "wait 4 s", retryAfterMs: 3500 });
    t = 6001; // the first hit has left the window; a refused hit did not count
    expect(() => limiter.hit("u")).not.toThrow();
    expect(() => limiter.hit("u")).toThrow(RateLimited);
  });
});
