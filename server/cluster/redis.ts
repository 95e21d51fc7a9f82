/**
 * Redis for scale-out (REDIS_URL): the one module that opens connections (ioredis). Every key and
 * channel Argus uses starts with REDIS_PREFIX, so several installs — or parallel test runs — can
 * share one Redis.
 *
 * Start-up checks the server answers, and stops with a message naming REDIS_URL when it does not.
 * While running, connections reconnect by themselves: commands of the main connection wait for
 * Redis to come back (a job added meanwhile is sent then), the `fast` connection refuses at once
 * (rate limits and presence counters then fall back to this process's own view instead of hanging
 * a page).
 */
import { Redis, type RedisOptions } from "ioredis";
import type { Logger } from "../logger.ts";

export type { Redis } from "ioredis";

export interface RedisSettings {
  url: string;
  prefix: string;
}

export interface RedisLink {
  /** The URL without its password (for messages and logs). */
  label: string;
  prefix: string;
  /** `<prefix>:<part>:<part>…` */
  key(...parts: string[]): string;
  /** Commands that may wait for a reconnect (jobs, streams). */
  client: Redis;
  /** Commands that fail at once while Redis is away (callers fall back to something local). */
  fast: Redis;
  /** Another connection of the same server (a subscriber, a worker's blocking reads); closed with the link. */
  connection(name: string, options?: RedisOptions): Redis;
  /** The next value of a counter shared by every node (1, 2, 3 …; forgotten after a day unused). */
  count(...parts: string[]): Promise<number>;
  /** Answers within a second. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** redis://user:secret@host:6379/2 → redis://user:***@host:6379/2 */
export function redisLabel(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(an unparsable URL)";
  }
}

const RETRY_MAX_MS = 2000;
/** How long start-up waits for Redis to answer. */
const CONNECT_TIMEOUT_MS = 5000;

export async function openRedis(settings: RedisSettings, log: Logger): Promise<RedisLink> {
  const label = redisLabel(settings.url);
  const opened = new Set<Redis>();
  const base: RedisOptions = {
    // BullMQ's workers need commands that wait across a reconnect rather than fail after N tries.
    maxRetriesPerRequest: null,
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy: (times) => Math.min(100 * times, RETRY_MAX_MS),
    lazyConnect: true,
  };
  let lastDown = 0;
  const open = (name: string, options: RedisOptions = {}) => {
    const r = new Redis(settings.url, { ...base, connectionName: `argus-${name}`, ...options });
    // Without a listener ioredis prints every reconnect failure; one line per outage is enough.
    r.on("error", (err: Error) => {
      if (Date.now() - lastDown > 10_000)
        log.warn({ err: err.message, redis: label }, "Redis is unreachable; retrying");
      lastDown = Date.now();
    });
    opened.add(r);
    return r;
  };

  const client = open("main");
  const firstError = new Promise<Error>((resolve) => client.once("error", resolve));
  try {
    await Promise.race([
      client.connect(),
      firstError.then((err) => Promise.reject(err)),
      new Promise((_, reject) => setTimeout(() => reject(new Error("no answer")), CONNECT_TIMEOUT_MS).unref()),
    ]);
    await client.ping();
  } catch (err) {
    client.disconnect();
    const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new Error(
      `REDIS_URL: cannot reach Redis at ${label} (${why}). Start Redis there, fix REDIS_URL, or unset it to run jobs in this process.`,
      { cause: err },
    );
  }
  const fast = open("fast", { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false });

  return {
    label,
    prefix: settings.prefix,
    key: (...parts) => [settings.prefix, ...parts].join(":"),
    client,
    fast,
    connection: (name, options) => open(name, { lazyConnect: false, ...options }),
    async count(...parts) {
      const key = [settings.prefix, ...parts].join(":");
      const replies = await fast
        .multi()
        .incr(key)
        .pexpire(key, 24 * 3600 * 1000)
        .exec();
      const [err, value] = replies?.[0] ?? [new Error("no reply")];
      if (err) throw err;
      return Number(value);
    },
    async ping() {
      return Promise.race([
        fast.ping().then(
          (r) => r === "PONG",
          () => false,
        ),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 1000).unref()),
      ]);
    },
    async close() {
      await Promise.all(
        [...opened].map((r) =>
          r.status === "ready"
            ? r.quit().then(
                () => undefined,
                () => r.disconnect(),
              )
            : r.disconnect(),
        ),
      );
      opened.clear();
    },
  };
}
