/**
 * The baseline of the fan-out bench: a bare `ws` server that sends each message to every connected
 * client — no auth, no rooms, no persistence, no Socket.IO framing. The message is encoded once and
 * the same buffer written to every socket, as Socket.IO's broadcast does. `coalesced` batches deltas
 * into the bus's window (COALESCE_MS) the way server/events/bus.ts does, to separate what batching
 * buys from what Argus's layers cost.
 */
import type { AddressInfo } from "node:net";
import { WebSocket, WebSocketServer } from "ws";
import { COALESCE_MS } from "../../server/events/bus.ts";

export interface RawFanout {
  url: string;
  /** Publishes one token delta. */
  publish(text: string): void;
  /** Sends what is still held (the open window). */
  flush(): void;
  close(): Promise<void>;
}

export async function startRawWs(opts: { coalesced: boolean }): Promise<RawFanout> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => wss.once("listening", resolve));
  const { port } = wss.address() as AddressInfo;

  const broadcast = (text: string) => {
    const frame = Buffer.from(JSON.stringify({ type: "token", payload: { text, phase: "exploring" } }));
    for (const client of wss.clients) if (client.readyState === WebSocket.OPEN) client.send(frame, { binary: false });
  };

  let held = "";
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (held) broadcast(held);
    held = "";
  };

  return {
    url: `ws://127.0.0.1:${port}`,
    publish(text) {
      if (!opts.coalesced) return broadcast(text);
      held += text;
      timer ??= setTimeout(flush, COALESCE_MS);
    },
    flush,
    close: () =>
      new Promise((resolve) => {
        flush();
        for (const client of wss.clients) client.terminate();
        wss.close(() => resolve());
      }),
  };
}
