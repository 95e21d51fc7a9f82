/**
 * Every socket is also in its user's own Socket.IO room (joined at connection), so what is for one
 * user — a new notification — reaches every tab they have open. The room is not a room of the
 * protocol (server/shared/rooms.ts): no client can join or leave it by message, and the periodic
 * rights re-check leaves it alone (a signed-out session is disconnected, which leaves it too).
 * A spectator's socket (share link) joins none: a guest has no inbox, so nothing is ever pushed to it.
 */
import type { Notifier } from "../notifications/service.ts";
import type { ArgusSocket, ArgusSocketServer } from "./types.ts";

export const userRoom = (userId: string) => `user:${userId}`;

export function joinUserRoom(socket: ArgusSocket): void {
  if (socket.data.spectator) return;
  void socket.join(userRoom(socket.data.actor.userId));
}

/** Pushes each notification written to its user's sockets; returns the unsubscribe function. */
export function pushNotifications(io: ArgusSocketServer, notify: Pick<Notifier, "onCreated">): () => void {
  return notify.onCreated((userId, push) => {
    io.to(userRoom(userId)).emit("notification", push);
  });
}
