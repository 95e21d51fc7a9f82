/** The typed Socket.IO server and socket of rooms (the protocol is server/shared/room-protocol.ts). */
import type { Server, Socket } from "socket.io";
import type { Actor } from "../auth/access.ts";
import type { ClientToServerEvents, ServerToClientEvents } from "../shared/room-protocol.ts";

export interface SocketData {
  actor: NonNullable<Actor>;
}

export type ArgusSocketServer = Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;
export type ArgusSocket = Socket<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;
