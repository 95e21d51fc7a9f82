/** The typed Socket.IO server and socket of rooms (the protocol is server/shared/room-protocol.ts). */
import type { Server, Socket } from "socket.io";
import type { Actor } from "../auth/access.ts";
import type { Spectator } from "../rooms/spectators.ts";
import type { ClientToServerEvents, ServerToClientEvents } from "../shared/room-protocol.ts";

export interface SocketData {
  /** The signed-in user; for a spectator, a guest who is a member of nothing (rooms/spectators.ts). */
  actor: NonNullable<Actor>;
  /** Set when the socket was opened with a share link instead of a session: its one room. */
  spectator: Spectator | null;
}

export type ArgusSocketServer = Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;
export type ArgusSocket = Socket<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;
