/**
 * Socket.IO across nodes (REDIS_URL): the Redis streams adapter. A broadcast from any node — a web
 * node's chat message, a worker's review events — is appended to one Redis stream
 * (`<prefix>:socket.io`), every node reads it and delivers to its own sockets, and the stream's
 * offsets give Socket.IO's connection state recovery (a socket that reconnects within
 * RECOVERY_MS, to any node, gets its rooms back and the packets it missed — after they are checked
 * again, see recovery.ts). Requests between nodes (fetchSockets, serverSideEmit) go over pub/sub.
 *
 * Connections: the adapter's reads (a blocking XREAD) and its subscriber wait for Redis across a
 * reconnect. What it publishes depends on the role: a worker's publishes wait too (its events go out
 * when Redis is back, in order, nothing lost); a web node's fail at once while Redis is away, so its
 * own sockets still get its events without delay — clients on other nodes fill the gap from the log
 * (server/shared/room-delivery.ts) with the next event or their next join.
 */
import { createAdapter } from "@socket.io/redis-streams-adapter";
import type { Redis, RedisLink } from "../cluster/redis.ts";

/** How long a disconnected socket's state is kept for recovery (no longer than the rights re-check). */
export const RECOVERY_MS = 30_000;

/** The streams adapter on its own connections; `waitForRedis`: publishes wait across an outage. */
export function clusterAdapter(redis: RedisLink, opts: { waitForRedis: boolean }) {
  const publisher = redis.connection(
    "socket.io",
    opts.waitForRedis ? {} : { enableOfflineQueue: false, maxRetriesPerRequest: 1 },
  );
  // The adapter duplicates its client for the stream reader and the subscriber: those always wait.
  let readers = 0;
  (publisher as Redis & { duplicate: () => Redis }).duplicate = () => redis.connection(`socket.io-read-${++readers}`);
  return createAdapter(publisher, {
    streamName: redis.key("socket.io"),
    channelPrefix: redis.key("socket.io"),
    sessionKeyPrefix: redis.key("socket.io-session:"),
    // A Socket.IO packet of Argus is JSON (events, presence): no binary, no msgpack detour.
    onlyPlaintext: true,
  });
}
