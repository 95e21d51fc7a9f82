import { describe, expect, it } from "vitest";
import { createRateLimiter, memoryRateLimitStore, RateLimited } from "./rate-limit.ts";

describe("rate limiter", () => {
  it("allows max hits per window, then refuses with when to retry; the window slides", async () => {
    let t = 1000;
    const limiter = createRateLimiter({ max: 3, windowMs: 5000, now: () => t, message: (s) => `wait ${s} s` });
    await limiter.hit("u");
    t += 1000;
    await limiter.hit("u");
    await limiter.hit("u");
    await limiter.hit("other"); // keys are apart
    t += 500;
    const refused = await limiter.hit("u").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RateLimited);
    // The first hit (t=1000) leaves the window at t=6000; it is 2500 now.
    expect(refused).toMatchObject({ message: "wait 4 s", retryAfterMs: 3500 });
    t = 6001; // the first hit has left the window; a refused hit did not count
    await expect(limiter.hit("u")).resolves.toBeUndefined();
    await expect(limiter.hit("u")).rejects.toThrow(RateLimited);
  });

  it("limiters sharing one store keep their counts apart by name", async () => {
    const store = memoryRateLimitStore();
    const chat = createRateLimiter({ name: "chat", max: 1, windowMs: 5000, store, message: () => "chat" });
    const typing = createRateLimiter({ name: "typing", max: 1, windowMs: 5000, store, message: () => "typing" });
    await chat.hit("u");
    await typing.hit("u");
    await expect(chat.hit("u")).rejects.toThrow("chat");
    await expect(typing.hit("u")).rejects.toThrow("typing");
  });
});
