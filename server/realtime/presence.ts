/**
 * Presence: who is in each room, by user, and what each looks at. A user is present while any of
 * their sockets is in the room; when the last one leaves — a `leave`, a disconnect, a right revoked —
 * they are gone. Leaving is taken from the Socket.IO adapter's leave-room event, which fires for every
 * one of those, so no path forgets it. Every change goes to the room as a `presence` message.
 *
 * "Hide my position" (server/rooms/preferences.ts) is enforced here: the focus of a user who hides it
 * is never stored, so no `presence` message carries it — they show with no focus. The stored choice is
 * read on each position update; turning it on drops the user's focus in every room at once.
 *
 * In memory, per process: with several web nodes each knows its own sockets (a shared adapter would
 * need to carry presence too).
 */
import { invalid } from "../errors.ts";
import type { UserPreferences } from "../rooms/preferences.ts";
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
  /** What the socket's user looks at (kept to itself when they hide it); refused unless the socket is in the room. */
  focus(socket: ArgusSocket, room: RoomName, focus: Focus | null): Promise<void>;
  members(room: string): PresentMember[];
  /** Stops listening to preference changes (the server closes). */
  close(): void;
}

export function trackPresence(io: ArgusSocketServer, preferences: UserPreferences): Presence {
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

  // The latest choice announced in this process per user, and a count of announcements: a database
  // read that started before an announcement must not override it (the read may predate the save).
  const announced = new Map<string, { hidden: boolean; version: number }>();
  async function hidesPosition(userId: string): Promise<boolean> {
    const before = announced.get(userId)?.version ?? 0;
    const { hidePosition } = await preferences.of(userId);
    const now = announced.get(userId);
    return now && now.version !== before ? now.hidden : hidePosition;
  }
  const unsubscribe = preferences.onChange(({ userId, hidePosition }) => {
    announced.set(userId, { hidden: hidePosition, version: (announced.get(userId)?.version ?? 0) + 1 });
    if (!hidePosition) return; // the browser says its position again
    for (const [room, inRoom] of rooms) {
      const member = inRoom.get(userId);
      if (!member?.focus) continue;
      member.focus = null;
      member.focusSocket = null;
      tell(room);
    }
  });

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
    async focus(socket, room, wanted) {
      const { userId } = socket.data.actor;
      const inRoom = () => {
        const member = rooms.get(room)?.get(userId);
        if (!member || !member.sockets.has(socket.id)) throw invalid("Join the room first, then say what you look at.");
        return member;
      };
      if (sameFocus(inRoom().focus, wanted)) return;
      limiter.hit(userId);
      const focus = wanted && (await hidesPosition(userId)) ? null : wanted;
      // The socket may have left while the choice was read.
      const member = inRoom();
      if (sameFocus(member.focus, focus)) return;
      member.focus = focus;
      member.focusSocket = focus ? socket.id : null;
      tell(room);
    },
    members,
    close: unsubscribe,
  };
}
