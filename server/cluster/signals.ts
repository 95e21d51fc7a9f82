/**
 * Signals: small messages to every process of the install — "cancel review R", "review R's steering
 * changed" — that reach whichever process runs the job. Nothing is stored: a signal is a nudge, the
 * database holds the truth (a cancelled review's row says so; a paused hook also polls its table), so
 * a signal lost while Redis is away costs latency, never correctness.
 *
 * In one process (no REDIS_URL) listeners are called directly. With Redis, one pub/sub channel per
 * install (`<prefix>:signals`); this process's own listeners are called directly too, and its own
 * messages coming back from Redis are skipped.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "../logger.ts";
import type { RedisLink } from "./redis.ts";

export type SignalListener = (message: Record<string, unknown>) => void;

export interface Signals {
  /** Delivers to every process's listeners of the topic (this one's included). */
  publish(topic: string, message: Record<string, unknown>): Promise<void>;
  subscribe(topic: string, listener: SignalListener): () => void;
  close(): Promise<void>;
}

function localListeners(log: Logger) {
  const topics = new Map<string, Set<SignalListener>>();
  return {
    deliver(topic: string, message: Record<string, unknown>) {
      for (const listener of topics.get(topic) ?? []) {
        try {
          listener(message);
        } catch (err) {
          log.error({ err, topic }, "a signal listener threw");
        }
      }
    },
    subscribe(topic: string, listener: SignalListener) {
      let set = topics.get(topic);
      if (!set) topics.set(topic, (set = new Set()));
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0) topics.delete(topic);
      };
    },
  };
}

export function createLocalSignals(log: Logger): Signals {
  const local = localListeners(log);
  return {
    publish: async (topic, message) => local.deliver(topic, message),
    subscribe: local.subscribe,
    close: async () => undefined,
  };
}

export async function createRedisSignals(redis: RedisLink, log: Logger): Promise<Signals> {
  const local = localListeners(log);
  const channel = redis.key("signals");
  const self = randomUUID();
  const subscriber = redis.connection("signals");
  subscriber.on("message", (ch: string, raw: string) => {
    if (ch !== channel) return;
    let parsed: { from?: unknown; topic?: unknown; message?: unknown };
    try {
      parsed = JSON.parse(raw) as typeof parsed;
    } catch {
      return log.warn({ channel }, "a signal that is not JSON; ignored");
    }
    if (parsed.from === self || typeof parsed.topic !== "string") return;
    if (typeof parsed.message !== "object" || parsed.message === null) return;
    local.deliver(parsed.topic, parsed.message as Record<string, unknown>);
  });
  await subscriber.subscribe(channel);
  return {
    async publish(topic, message) {
      local.deliver(topic, message);
      await redis.fast.publish(channel, JSON.stringify({ from: self, topic, message })).catch((err: unknown) => {
        // The database still holds the truth (see the file comment): the other side notices by polling.
        log.warn({ err, topic }, "signal not sent to the other nodes (Redis unreachable)");
      });
    },
    subscribe: local.subscribe,
    async close() {
      await subscriber.unsubscribe(channel).catch(() => undefined);
    },
  };
}
