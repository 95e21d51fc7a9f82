/**
 * The Redis pieces two nodes share (REDIS_URL; skipped without it): signals reach the other node's
 * listeners once (and this node's own, without a round trip); rate limits count one user across nodes;
 * counters are shared.
 */
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sayWhySkipped, testRedis } from "../../test/helpers/redis.ts";
import { createRateLimiter, RateLimited } from "../lib/rate-limit.ts";
import { redisRateLimitStore } from "./rate-limit-store.ts";
import { openRedis, type RedisLink } from "./redis.ts";
import { createRedisSignals, type Signals } from "./signals.ts";

const log = pino({ level: "silent" });
const { redis: server, skip } = await testRedis("cluster");
sayWhySkipped("server/cluster/cluster.redis.test.ts", skip);

let a: RedisLink;
let b: RedisLink;
beforeAll(async () => {
  if (!server) return;
  [a, b] = await Promise.all([openRedis(server.settings, log), openRedis(server.settings, log)]);
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await server?.cleanup();
});

describe.skipIf(!server)("signals between two nodes", () => {
  let sa: Signals;
  let sb: Signals;
  beforeAll(async () => {
    [sa, sb] = await Promise.all([createRedisSignals(a, log), createRedisSignals(b, log)]);
  });
  afterAll(async () => {
    await sa?.close();
    await sb?.close();
  });

  it("a signal reaches every node's listeners of its topic once, this node's own at once", async () => {
    const got: string[] = [];
    sa.subscribe("review.cancel", (m) => got.push(`a:${String(m.reviewId)}`));
    sb.subscribe("review.cancel", (m) => got.push(`b:${String(m.reviewId)}`));
    sb.subscribe("review.steer", (m) => got.push(`b-steer:${String(m.reviewId)}`));
    const sent = sa.publish("review.cancel", { reviewId: "r1" });
    expect(got).toEqual(["a:r1"]); // local: before Redis answered
    await sent;
    await expect.poll(() => got).toEqual(["a:r1", "b:r1"]);
    await new Promise((r) => setTimeout(r, 100));
    expect(got).toEqual(["a:r1", "b:r1"]); // not twice, and no other topic
  });
});

describe.skipIf(!server)("rate limits shared by two nodes", () => {
  it("a user's hits on either node count against one limit", async () => {
    const limiter = (link: RedisLink) =>
      createRateLimiter({
        name: "chat",
        max: 3,
        windowMs: 5000,
        store: redisRateLimitStore(link, log),
        message: (s) => `wait ${s} s`,
      });
    const [onA, onB] = [limiter(a), limiter(b)];
    await onA.hit("ann");
    await onB.hit("ann");
    await onA.hit("ann");
    const refused = await onB.hit("ann").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RateLimited);
    expect((refused as RateLimited).message).toMatch(/^wait [45] s$/);
    await onB.hit("bob"); // another user is not held back
  });

  it("counters count across nodes", async () => {
    const first = await a.count("presence", "review:x");
    expect(await b.count("presence", "review:x")).toBe(first + 1);
  });
});
