/**
 * Flooding a running server's room socket while /api/health is probed: the machinery shared by the
 * socket-floods test (the limits refuse and drop) and `npm run bench -- floods` (health's latency
 * meanwhile, next to its latency at rest).
 */
import { Worker } from "node:worker_threads";
import { io as connect, type Socket } from "socket.io-client";
import { type Ack, type ClientMessage, ROOM_PROTOCOL_VERSION } from "../../../server/shared/room-protocol.ts";

export type Opened = { socket: Socket; send: (m: ClientMessage, p: unknown) => Promise<Ack<Record<string, unknown>>> };

export async function openSocket(
  url: string,
  auth: { cookie?: string; share?: string; protocol?: number | null },
): Promise<Opened> {
  const socket = connect(url, {
    forceNew: true,
    reconnection: false,
    transports: ["websocket"],
    auth: {
      ...(auth.protocol === null ? {} : { protocol: auth.protocol ?? ROOM_PROTOCOL_VERSION }),
      ...(auth.share ? { share: auth.share } : {}),
    },
    extraHeaders: auth.cookie ? { cookie: auth.cookie } : {},
    timeout: 5000,
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("ready", () => resolve());
    socket.once("connect_error", reject);
  });
  return {
    socket,
    send: (m, p) =>
      (socket.timeout(10_000) as unknown as Socket).emitWithAck(m, p) as Promise<Ack<Record<string, unknown>>>,
  };
}

/**
 * /api/health every 25 ms until stopped: each answer's time. Probed from a worker thread, so that
 * the flooding client's work on this thread's event loop does not count as the server's delay.
 */
export function probeHealth(url: string) {
  const worker = new Worker(
    `const { parentPort, workerData } = require("node:worker_threads");
    const times = [];
    let running = true;
    let pinged = false;
    parentPort.on("message", (m) => (m === "ping" ? (pinged = true) : (running = false)));
    (async () => {
      while (running) {
        const t = performance.now();
        const res = await fetch(workerData.url);
        await res.arrayBuffer();
        times.push(performance.now() - t);
        // The first answer (connection set up) only says the probe is ready; it is not counted.
        if (pinged) {
          pinged = false;
          times.length = 0;
          parentPort.postMessage("warm");
        }
        await new Promise((r) => setTimeout(r, 25));
      }
      parentPort.postMessage(times);
    })();`,
    { eval: true, workerData: { url: `${url}/api/health` } },
  );
  let first: Promise<void> | null = null;
  return {
    /** Resolves once the first answer came back. */
    warm: () =>
      (first ??= new Promise<void>((resolve) => {
        worker.once("message", () => resolve());
        worker.postMessage("ping");
      })),
    async stop() {
      const times = await new Promise<number[]>((resolve) => {
        worker.once("message", resolve);
        worker.postMessage("stop");
      });
      await worker.terminate();
      const sorted = [...times].sort((a, b) => a - b);
      return {
        count: sorted.length,
        p99: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!,
        samples: times,
      };
    },
  };
}

export interface FloodOutcome {
  ok: number;
  refused: Extract<Ack, { ok: false }>[];
  dropped: boolean;
  healthP99: number;
  healthCount: number;
  /** Every health answer's time (ms) from the flood's start until a moment after its end. */
  healthMs: number[];
}

/**
 * Sends `count` messages at once on `flooder` (no waiting between them), while health is probed and
 * (optionally) a bystander reads its own room every 100 ms; resolves once the socket is dropped or
 * every reply is in.
 */
export async function flood(
  url: string,
  flooder: Opened,
  message: ClientMessage,
  payload: (i: number) => unknown,
  count: number,
  bystander?: { client: Opened; room: string; replies: Ack<Record<string, unknown>>[]; ms: number[] },
): Promise<FloodOutcome> {
  const health = probeHealth(url);
  // The probe's thread and connection are up before the flood starts (their start is not the server's delay).
  await health.warm();
  let ok = 0;
  const refused: Extract<Ack, { ok: false }>[] = [];
  const dropped = new Promise<boolean>((resolve) => flooder.socket.once("disconnect", () => resolve(true)));
  let reading = true;
  const reader = (async () => {
    while (bystander && reading) {
      const t = performance.now();
      bystander.replies.push(await bystander.client.send("history", { room: bystander.room, afterSeq: 0 }));
      bystander.ms.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const replies = Array.from(
    { length: count },
    (_, i) =>
      new Promise<void>((resolve) => {
        (flooder.socket.emit as (m: string, p: unknown, ack: (r: Ack) => void) => void)(message, payload(i), (r) => {
          if (r.ok) ok++;
          else refused.push(r);
          resolve();
        });
      }),
  );
  // Dropped before every reply came, or right after the last (the replies already sent arrive first).
  const timeout = (ms: number) => new Promise<boolean>((r) => setTimeout(() => r(false), ms));
  const wasDropped = await Promise.race([
    dropped,
    Promise.all(replies).then(() => Promise.race([dropped, timeout(5000)])),
    timeout(60_000),
  ]);
  // Health for a moment after the drop too: the replies already under way still cost. A bystander
  // keeps reading until it has a few answers to judge by, however quickly the flood was stopped.
  await new Promise((r) => setTimeout(r, 500));
  for (let i = 0; bystander && bystander.replies.length < 5 && i < 50; i++)
    await new Promise((r) => setTimeout(r, 100));
  reading = false;
  await reader;
  const { p99, count: healthCount, samples: healthMs } = await health.stop();
  flooder.socket.close();
  return { ok, refused, dropped: wasDropped, healthP99: p99, healthCount, healthMs };
}
