/** Opening Redis: a server that does not answer stops start-up with a message naming REDIS_URL. */
import net from "node:net";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { openRedis, redisLabel } from "./redis.ts";

const log = pino({ level: "silent" });

describe("openRedis", () => {
  it("refuses to start when nothing answers at REDIS_URL, naming it (without the password)", async () => {
    // A port that was free a moment ago: nothing listens there now.
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const started = Date.now();
    await expect(openRedis({ url: `redis://:s3cret@127.0.0.1:${port}/0`, prefix: "t" }, log)).rejects.toThrow(
      `REDIS_URL: cannot reach Redis at redis://:***@127.0.0.1:${port}/0 (ECONNREFUSED). Start Redis there, fix REDIS_URL, or unset it to run jobs in this process.`,
    );
    expect(Date.now() - started).toBeLessThan(6000);
  });

  it("names a server that accepts connections but never answers, within the connect timeout", async () => {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as net.AddressInfo;
    try {
      await expect(openRedis({ url: `redis://127.0.0.1:${port}`, prefix: "t" }, log)).rejects.toThrow(
        /^REDIS_URL: cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+ \(/,
      );
    } finally {
      silent.close();
    }
  }, 15_000);

  it("labels a URL without its password", () => {
    expect(redisLabel("rediss://user:pw@cache.example.com:6380/2")).toBe("rediss://user:***@cache.example.com:6380/2");
    expect(redisLabel("redis://cache:6379")).toBe("redis://cache:6379");
  });
});
