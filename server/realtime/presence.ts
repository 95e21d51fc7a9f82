/**
 * Presence: who is in each room, by user, and what each looks at. A user is present while any of
 * their sockets is in the room; when the last one leaves — a `leave`, a disconnect, a right revoked —
 * they are gone. Leaving is taken from the Socket.IO adapter's leave-room event, which fires for every
 * one of those, so no path forgets it. Every change goes to the room as a `presence` message.
 *
 * In memory, per process: with several web nodes each knows its own sockets (a shared adapter would
 * need to carry presence too).
 */
import { invalid } from "../errors.ts";
import { createRateLimiter } from "../rooms/rate-limit.ts";
import {
  type Focus,
  PRESENCE_RATE_UPDATES,
  PRESENCE_RATE_WINDOW_MS,
  type PresentMember,
  sameFocus,
} from "../shared/room-presence.ts";
import type { RoomName } from "../shared/rooms.ts";
import type { ArgusSocket, ArgusSocketServer } from "./types.ts";

interface Member {
  name: string;
  /** The user's sockets in the room. */
  sockets: Set<string>;
  focus: Focus | null;
  /** The socket that said it (its leaving clears the focus). */
  focusSocket: string | null;
}

export interface Presence {
  /** The socket is in the room now (after socket.join): adds its user and tells the room. */
  joined(socket: ArgusSocket, room: RoomName): void;
  /** What the socket's user looks at; refused unless the socket is in the room. */
  focus(socket: ArgusSocket, room: RoomName, focus: Focus | null): void;
  members(room: string): PresentMember[];
}

export function trackPresence(io: ArgusSocketServer): Presence {
  const rooms = new Map<string, Map<string, Member>>();
  // Which user each socket is (a socket belongs to one user for its whole life).
  const users = new Map<string, { userId: string; name: string }>();
  const limiter = createRateLimiter({
    max: PRESENCE_RATE_UPDATES,
    windowMs: PRESENCE_RATE_WINDOW_MS,
    message: (s) => `Too many position updates; the next one is accepted in ${s} s.`,
  });

  const members = (room: string): PresentMember[] =>
    [...(rooms.get(room) ?? new Map<string, Member>()).entries()].map(([userId, m]) => ({
      userId,
      name: m.name,
      focus: m.focus,
    }));
  const tell = (room: string) => io.to(room).emit("presence", { room, members: members(room) });

  io.of("/").adapter.on("leave-room", (room: string, socketId: string) => {
    const user = users.get(socketId);
    const inRoom = rooms.get(room);
    const member = user && inRoom?.get(user.userId);
    if (!user || !inRoom || !member || !member.sockets.delete(socketId)) return;
    if (member.sockets.size === 0) inRoom.delete(user.userId);
    else if (member.focusSocket === socketId) {
      member.focus = null;
      member.focusSocket = null;
    }
    if (inRoom.size === 0) rooms.delete(room);
    else tell(room);
  });
  io.on("connection", (socket) => {
    socket.on("disconnect", () => {
      // Socket.IO has left every room by now (leave-room fired for each).
      users.delete(socket.id);
    });
  });

  return {
    joined(socket, room) {
      const { userId, name } = socket.data.actor;
      users.set(socket.id, { userId, name });
      let inRoom = rooms.get(room);
      if (!inRoom) rooms.set(room, (inRoom = new Map()));
      let member = inRoom.get(userId);
      if (!member) inRoom.set(userId, (member = { name, sockets: new Set(), focus: null, focusSocket: null }));
      member.sockets.add(socket.id);
      tell(room);
    },
    focus(socket, room, focus) {
      const member = rooms.get(room)?.get(socket.data.actor.userId);
      if (!member || !member.sockets.has(socket.id)) throw invalid("Join the room first, then say what you look at.");
      if (sameFocus(member.focus, focus)) return;
      limiter.hit(socket.data.actor.userId);
      member.focus = focus;
      member.focusSocket = focus ? socket.id : null;
      tell(room);
    },
    members,
  };
}
