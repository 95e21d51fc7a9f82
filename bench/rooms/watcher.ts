/**
 * A child process of the fan-out bench holding many watcher connections: Socket.IO clients of the
 * room protocol (signed in through better-auth, joined to the room like the browser) or raw `ws`
 * clients. The parent drives it over IPC: open → (start → done → collect)* → close.
 */
import { io } from "socket.io-client";
import WebSocket from "ws";
import type { RoomSocket } from "../../test/helpers/room-client.ts";
import { clock, DeltaTally } from "./deltas.ts";
import { ROOM_PROTOCOL_VERSION } from "../../server/shared/room-protocol.ts";

export type WatcherCommand =
  | { cmd: "open"; transport: "socket.io"; url: string; count: number; room: string; email: string; password: string }
  | { cmd: "open"; transport: "ws"; url: string; count: number }
  | { cmd: "start"; run: number; expected: number }
  | { cmd: "collect" }
  | { cmd: "close" };

export interface Collected {
  connections: number;
  complete: number;
  unique: number;
  duplicates: number;
  reordered: number;
  frames: number;
  lastArrival: number;
  latencies: Float64Array;
}

export type WatcherReply =
  { ok: "opened" | "started" | "closed" } | { done: number } | { collected: Collected } | { error: string };

const send = (reply: WatcherReply) => process.send!(reply);

let tallies: DeltaTally[] = [];
let closers: (() => void)[] = [];
let reportedDone = -1;

function onText(slot: number, text: string) {
  const arrival = clock();
  const tally = tallies[slot];
  if (!tally) return;
  tally.take(text, arrival);
  if (tally.complete && reportedDone !== tally.run && tallies.every((t) => t.complete)) {
    reportedDone = tally.run;
    send({ done: tally.run });
  }
}

async function signIn(url: string, email: string, password: string): Promise<string> {
  const res = await fetch(`${url}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: url },
    body: JSON.stringify({ email, password }),
  });
  if (!res.ok) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0]!.trim())
    .join("; ");
}

async function openSocketIo(url: string, room: string, cookie: string, slot: number): Promise<() => void> {
  // As the browser connects (app/_lib/room.ts), with a patient timeout: the bench machine is busy.
  const socket: RoomSocket = io(url, {
    forceNew: true,
    auth: { protocol: ROOM_PROTOCOL_VERSION },
    reconnection: false,
    transports: ["websocket"],
    extraHeaders: { cookie },
    timeout: 60_000,
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("ready", () => resolve());
    socket.once("connect_error", reject);
  });
  socket.on("event", (e) => {
    if (e.type === "token") onText(slot, e.payload.text);
  });
  const joined = await socket.timeout(60_000).emitWithAck("join", { room, afterSeq: 0 });
  if (!joined.ok) throw new Error(`join refused: ${joined.error}`);
  return () => socket.close();
}

function openWs(url: string, slot: number): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    // Parsed like the Socket.IO client parses its packets: the same work on both sides of the comparison.
    ws.on("message", (data) => onText(slot, (JSON.parse(String(data)) as { payload: { text: string } }).payload.text));
    ws.once("open", () => resolve(() => ws.close()));
    ws.once("error", reject);
  });
}

async function handle(msg: WatcherCommand): Promise<void> {
  switch (msg.cmd) {
    case "open": {
      const cookie = msg.transport === "socket.io" ? await signIn(msg.url, msg.email, msg.password) : "";
      for (let slot = 0; slot < msg.count; slot++)
        closers.push(
          msg.transport === "socket.io"
            ? await openSocketIo(msg.url, msg.room, cookie, slot)
            : await openWs(msg.url, slot),
        );
      send({ ok: "opened" });
      return;
    }
    case "start":
      tallies = closers.map(() => new DeltaTally(msg.run, msg.expected));
      send({ ok: "started" });
      return;
    case "collect": {
      const all = tallies.flatMap((t) => t.latencies);
      send({
        collected: {
          connections: tallies.length,
          complete: tallies.filter((t) => t.complete).length,
          unique: sum(tallies.map((t) => t.unique)),
          duplicates: sum(tallies.map((t) => t.duplicates)),
          reordered: sum(tallies.map((t) => t.reordered)),
          frames: sum(tallies.map((t) => t.frames)),
          lastArrival: Math.max(0, ...tallies.map((t) => t.lastArrival)),
          latencies: Float64Array.from(all),
        },
      });
      tallies = [];
      return;
    }
    case "close":
      for (const close of closers) close();
      closers = [];
      send({ ok: "closed" });
      return;
  }
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

process.on("message", (msg: WatcherCommand) => {
  handle(msg).catch((err: unknown) => send({ error: err instanceof Error ? err.message : String(err) }));
});
process.on("disconnect", () => process.exit(0));
