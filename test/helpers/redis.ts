/**
 * Redis for the scale-out tests (`npm run test:scale`): REDIS_URL names the server. Each caller gets
 * a key prefix of its own (parallel runs and other users of the same Redis never collide), and
 * cleanup() deletes every key under it. When REDIS_URL is unset or nothing answers there, `skip`
 * says why and the tests skip with that message.
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import type { RedisSettings } from "../../server/cluster/redis.ts";

export interface TestRedis {
  settings: RedisSettings;
  /** A raw client (to look at keys, or to clean up). */
  client: Redis;
  cleanup(): Promise<void>;
}

export type TestRedisOrSkip = { redis: TestRedis; skip: undefined } | { redis: undefined; skip: string };

export async function testRedis(label = "test"): Promise<TestRedisOrSkip> {
  const url = process.env.REDIS_URL;
  if (!url) return { redis: undefined, skip: "REDIS_URL is not set: the scale-out tests need a Redis server." };
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    retryStrategy: () => null,
  });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.ping();
  } catch (err) {
    client.disconnect();
    return { redis: undefined, skip: `Redis at REDIS_URL (${url}) is unreachable (${(err as Error).message}).` };
  }
  const prefix = `argus-${label}-${randomBytes(4).toString("hex")}`;
  return {
    skip: undefined,
    redis: {
      settings: { url, prefix },
      client,
      async cleanup() {
        let cursor = "0";
        do {
          const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 500);
          cursor = next;
          if (keys.length) await client.del(...keys);
        } while (cursor !== "0");
        await client.quit();
      },
    },
  };
}

/** Why a scale-out test file skipped, once, where the run's output shows it. */
export function sayWhySkipped(file: string, why: string | undefined): void {
  if (why) console.warn(`[skipped] ${file}: ${why}`);
}
