/** The typed Socket.IO server and socket of rooms (the protocol is server/shared/room-protocol.ts). */
import type { Server, Socket } from "socket.io";
import type { Actor } from "../auth/access.ts";
import type { Relayed } from "../coedit/registry.ts";
import type { Spectator } from "../rooms/spectators.ts";
import type { Focus } from "../shared/room-presence.ts";
import type { ClientToServerEvents, ServerToClientEvents } from "../shared/room-protocol.ts";

export interface SocketData {
  /** The signed-in user; for a spectator, a guest who is a member of nothing (rooms/spectators.ts). */
  actor: NonNullable<Actor>;
  /** Set when the socket was opened with a share link instead of a session: its one room. */
  spectator: Spectator | null;
  /** The client's address (TRUSTED_PROXIES respected): keeps share-link guests' budgets apart. */
  address: string;
  /**
   * What this socket said its user looks at, per room, and when (presence.ts). Kept on the socket so
   * that every node can read it (the cluster adapter's fetchSockets carries socket data).
   */
  focus?: Record<string, { focus: Focus | null; at: number }>;
}

/**
 * Messages between the web nodes (the cluster adapter's serverSideEmit), each acknowledged once the
 * receiving node has acted: so "done" on one node means done on all of them.
 */
export interface InterServerEvents {
  /** A user's memberships changed: check their sockets' rights now. */
  membership: (info: { userId: string }, ack: () => void) => void;
  /** A share link was revoked: its spectators leave now. */
  shareRevoked: (info: { shareId: string }, ack: () => void) => void;
  /** A user now hides their position: drop it from every room. */
  hidePosition: (info: { userId: string }, ack: () => void) => void;
  /** An edit of a shared draft this node stored, for the other nodes' copies (no ack: the store is the truth). */
  coedit: (info: { room: string; message: Relayed }) => void;
}

export type ArgusSocketServer = Server<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;
export type ArgusSocket = Socket<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;
