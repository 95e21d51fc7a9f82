/**
 * bench/scale.ts's delivery part: room clients spread over the web nodes, each recording how long
 * after its storage every event of the room reached it, and the figures of those delays.
 */
import { io as connect, type Socket } from "socket.io-client";
import type { RoomEvent } from "../server/shared/room-events.ts";
import { ROOM_PROTOCOL_VERSION } from "../server/shared/room-protocol.ts";

/** An event a client received: its place in the room's log, and ms from its storage (`at`) to the client. */
export interface Delivery {
  seq: number;
  delayMs: number;
}

/** A web node to connect to, and the session cookie of the user its clients sign in as. */
export interface WebNodeLogin {
  url: string;
  cookie: string;
}

const percentile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const round = (n: number) => Math.round(n * 10) / 10;

/**
 * Opens `count` clients, the even ones on node A and the odd ones on node B, all joined to `room`
 * (each socket goes into `sockets` as it opens, for the caller to close); what each receives.
 */
export async function joinClients(
  room: string,
  count: number,
  [a, b]: [WebNodeLogin, WebNodeLogin],
  sockets: Socket[],
) {
  const received = Array.from({ length: count }, () => [] as Delivery[]);
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const s: Socket = connect(i % 2 === 0 ? a.url : b.url, {
        forceNew: true,
        auth: { protocol: ROOM_PROTOCOL_VERSION },
        reconnection: false,
        transports: ["websocket"],
        extraHeaders: { cookie: (i % 2 === 0 ? a : b).cookie },
      });
      sockets.push(s);
      await new Promise<void>((resolve, reject) => {
        s.once("ready", () => resolve());
        s.once("connect_error", reject);
      });
      s.on("event", (e: RoomEvent) => {
        if (e.room === room) received[i]!.push({ seq: e.seq, delayMs: Date.now() - Date.parse(e.at) });
      });
      await new Promise((resolve) => s.emit("join", { room, afterSeq: 0 }, resolve));
    }),
  );
  return received;
}

/** The delays of the events stored after `joinedAt` (p50, p99, max; p99 per node) and how many of `log` a client missed. */
export function deliveryFigures(received: Delivery[][], log: number[], joinedAt: number) {
  const delays = received.flatMap((r) => r.filter((e) => e.seq > joinedAt).map((e) => e.delayMs)).sort((a, b) => a - b);
  const lost = received.reduce((n, r) => {
    const got = new Set(r.map((e) => e.seq));
    return n + log.filter((seq) => !got.has(seq)).length;
  }, 0);
  const byNode = (parity: number) =>
    received
      .filter((_, i) => i % 2 === parity)
      .flatMap((r) => r.filter((e) => e.seq > joinedAt).map((e) => e.delayMs))
      .sort((a, b) => a - b);
  const [onA, onB] = [byNode(0), byNode(1)];
  return {
    clients: received.length,
    events: log.length,
    deliveries: delays.length,
    unit: "ms from the event's storage to the client",
    p50: round(percentile(delays, 0.5)),
    p99: round(percentile(delays, 0.99)),
    max: round(delays.at(-1) ?? 0),
    "p99 on node A (where the worker's events arrive through Redis, like B)": round(percentile(onA, 0.99)),
    "p99 on node B": round(percentile(onB, 0.99)),
    lostLive: lost,
  };
}
