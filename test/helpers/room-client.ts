/**
 * A Socket.IO client of the room protocol, typed with it, for tests against the real server: connect
 * with a user's session cookie, send any client message and await its reply, collect live events.
 */
import { io as connect, type Socket } from "socket.io-client";
import type { RoomEvent } from "../../server/shared/room-events.ts";
import type {
  Ack,
  ClientMessage,
  ClientReplies,
  ClientToServerEvents,
  ServerToClientEvents,
} from "../../server/shared/room-protocol.ts";
import { ROOM_PROTOCOL_VERSION } from "../../server/shared/room-protocol.ts";

export type RoomSocket = Socket<ServerToClientEvents, ClientToServerEvents>;
type Payload<M extends ClientMessage> = Parameters<ClientToServerEvents[M]>[0];
type Reply<M extends ClientMessage> = Ack<M extends keyof ClientReplies ? ClientReplies[M] : object>;

export interface RoomClient {
  socket: RoomSocket;
  /** Every live event received so far. */
  events: RoomEvent[];
  /** Sends a message and resolves with its reply (messages without a reply resolve at once). */
  call<M extends ClientMessage>(message: M, payload: Payload<M>): Promise<Reply<M>>;
  close(): void;
}

export async function openRoomClient(url: string, cookie: string): Promise<RoomClient> {
  const socket: RoomSocket = connect(url, {
    forceNew: true,
    auth: { protocol: ROOM_PROTOCOL_VERSION },
    reconnection: false,
    transports: ["websocket"],
    extraHeaders: { cookie },
    timeout: 5000,
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("ready", () => resolve());
    socket.once("connect_error", reject);
  });
  const events: RoomEvent[] = [];
  socket.on("event", (e) => events.push(e));
  return {
    socket,
    events,
    call: (message, payload) =>
      new Promise((resolve) => {
        // The typed emit cannot be written generically over every message; the signatures are the
        // protocol's (ClientToServerEvents), checked at each call site through Payload/Reply.
        (socket.emit as (m: string, p: unknown, ack: (r: unknown) => void) => void)(message, payload, (r) =>
          resolve(r as never),
        );
      }),
    close: () => socket.close(),
  };
}
