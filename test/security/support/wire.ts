/**
 * Talking to the server the way an attacker can: raw HTTP requests whose path is sent byte for byte
 * (fetch would normalise `%2e`, `./` and `../` away before they reach the server), and Socket.IO
 * clients with a chosen cookie.
 */
import http from "node:http";
import { io as connect, type Socket } from "socket.io-client";
import type { RoomEvent } from "../../../server/shared/room-events.ts";
import type {
  Ack,
  ClientMessage,
  ClientToServerEvents,
  HistoryReply,
  ServerToClientEvents,
} from "../../../server/shared/room-protocol.ts";
import { ROOM_PROTOCOL_VERSION } from "../../../server/shared/room-protocol.ts";

export interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One HTTP request with the path exactly as given (no URL normalisation). */
export function rawRequest(
  baseUrl: string,
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<RawReply> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: hostname,
        port,
        method: opts.method ?? "GET",
        path: opts.path,
        headers: {
          origin: baseUrl,
          ...(opts.body !== undefined ? { "content-length": String(Buffer.byteLength(opts.body)) } : {}),
          ...opts.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }),
        );
        res.on("error", reject);
      },
    );
    req.setTimeout(15_000, () => req.destroy(new Error(`timeout: ${opts.method ?? "GET"} ${opts.path}`)));
    req.on("error", reject);
    req.end(opts.body);
  });
}

export interface RoomClient {
  socket: Socket<ServerToClientEvents, ClientToServerEvents>;
  /** Every "event" and "revoked" message received so far. */
  received: unknown[];
  join(room: string, afterSeq?: number): Promise<Ack<HistoryReply>>;
  /** Any client→server message with any payload (hostile ones too), and its reply. */
  send(message: ClientMessage, payload: unknown): Promise<Ack<Record<string, unknown>>>;
  close(): void;
}

/** A connected Socket.IO client for `cookie`; rejects with the connect_error when refused. */
export async function openRoomClient(baseUrl: string, cookie?: string): Promise<RoomClient> {
  const socket: RoomClient["socket"] = connect(baseUrl, {
    forceNew: true,
    auth: { protocol: ROOM_PROTOCOL_VERSION },
    reconnection: false,
    transports: ["websocket"],
    extraHeaders: { origin: baseUrl, ...(cookie ? { cookie } : {}) },
    timeout: 5000,
  });
  const received: unknown[] = [];
  socket.on("event", (e: RoomEvent) => received.push(e));
  socket.on("revoked", ({ room, reason }) => received.push({ revoked: room, reason }));
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once("ready", () => resolve());
      socket.once("connect_error", reject);
    });
  } catch (err) {
    socket.close();
    throw err;
  }
  return {
    socket,
    received,
    join: (room, afterSeq = 0) => socket.timeout(5000).emitWithAck("join", { room, afterSeq }),
    // Untyped on purpose: the suite sends payloads the protocol's types would not let it write.
    send: (message, payload) =>
      (socket.timeout(5000) as unknown as Socket).emitWithAck(message, payload) as Promise<
        Ack<Record<string, unknown>>
      >,
    close: () => socket.close(),
  };
}

export interface Trap {
  url: string;
  /** Every request received: method, path, headers and body as one text each. */
  requests: { method: string; path: string; headers: string; body: string }[];
  close(): Promise<void>;
}

/** An HTTP server that records whatever reaches it (where a leaked key would be sent) and answers 401. */
export async function startTrap(): Promise<Trap> {
  const requests: Trap["requests"] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests.push({
        method: req.method ?? "",
        path: req.url ?? "",
        headers: JSON.stringify(req.headers),
        body: Buffer.concat(chunks).toString("utf8"),
      });
      res.writeHead(401, { "content-type": "application/json" });
      res.end('{"error":{"type":"authentication_error","message":"trap"}}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * POSTs a whole body and returns the answer even when the server answers early and hangs up while
 * the body is still being sent (what a byte cap does): fetch reports that as a reset, not a reply.
 */
export function postBody(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request(
      { host: hostname, port, method: "POST", path, headers: { ...headers, "content-length": String(body.length) } },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.setTimeout(60_000, () => req.destroy(new Error(`timeout: POST ${path}`)));
    req.on("error", (err) => {
      if (!answered) reject(err);
    });
    req.end(body);
  });
}
