/**
 * Message limits across nodes: two limiters on two Redis connections (two web nodes) share a
 * person's window, so sockets on both nodes together get no more than one person's budget.
 */
import { randomUUID } from "node:crypto";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sayWhySkipped, testRedis } from "../../test/helpers/redis.ts";
import { redisRateLimitStore } from "../cluster/rate-limit-store.ts";
import { openRedis, type RedisLink } from "../cluster/redis.ts";
import { createMessageLimiter, MESSAGE_BUDGETS, personRule } from "./message-limits.ts";

const log = pino({ level: "silent" });
const { redis: server, skip } = await testRedis("message-limits");
sayWhySkipped("server/rooms/message-limits.redis.test.ts", skip);

let a: RedisLink;
let b: RedisLink;
beforeAll(async () => {
  if (!server) return;
  [a, b] = await Promise.all([openRedis(server.settings, log), openRedis(server.settings, log)]);
  await Promise.all(
    [a, b].map((l) => (l.fast.status === "ready" ? undefined : new Promise((r) => l.fast.once("ready", r)))),
  );
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await server?.cleanup();
});

describe.skipIf(!server)("message limits across nodes", () => {
  it("a person's sockets on two nodes share one window per kind", async () => {
    const nodeA = createMessageLimiter({ store: redisRateLimitStore(a, log) });
    const nodeB = createMessageLimiter({ store: redisRateLimitStore(b, log) });
    const person = `user:${randomUUID()}`;
    const bucket = MESSAGE_BUDGETS["finding.vote"].member;
    let allowed = 0;
    // Many sockets, alternately on each node, each spending its own burst.
    for (let s = 0; s < 20; s++) {
      const node = s % 2 ? nodeB : nodeA;
      for (let i = 0; i < bucket.burst; i++)
        if ((await node.check({ socketId: `s${s}`, personKey: person, guest: false }, "finding.vote")).allowed)
          allowed++;
    }
    expect(allowed).toBe(personRule(bucket).max);
    const refused = await nodeB.check({ socketId: "fresh", personKey: person, guest: false }, "finding.vote");
    expect(refused.allowed).toBe(false);
    if (!refused.allowed) expect(refused.refusal.retryAfterMs).toBeGreaterThan(0);
  });
});
