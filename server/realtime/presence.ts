/**
 * Presence: who is in each room, by user, and what each looks at. A user is present while any of
 * their sockets is in the room; when the last one leaves — a `leave`, a disconnect, a right revoked —
 * they are gone. Leaving is taken from the Socket.IO adapter's leave-room event, which fires for every
 * one of those, so no path forgets it. Every change goes to the room as a `presence` message.
 *
 * The room's members are read from the sockets themselves (`fetchSockets`), each socket carrying
 * what it said its user looks at (socket.data.focus) — so with several web nodes (the cluster
 * adapter) the list spans every node, and a node that dies takes its sockets out of it. A user's focus
 * is the latest any of their sockets in the room said. Each message carries a version, taken before
 * the sockets are read (a counter in Redis across nodes): a client keeps the highest, so a slower
 * node's older list never replaces a newer one.
 *
 * "Hide my position" (server/rooms/preferences.ts) is enforced here: the focus of a user who hides it
 * is never stored, so no `presence` message carries it — they show with no focus. The stored choice is
 * read on each position update; turning it on drops the user's focus in every room at once (on every
 * node: socket.ts passes the change on).
 */
import { invalid } from "../errors.ts";
import type { Logger } from "../logger.ts";
import type { UserPreferences } from "../rooms/preferences.ts";
import { createRateLimiter, type RateLimitStore } from "../lib/rate-limit.ts";
import {
  type Focus,
  PRESENCE_RATE_UPDATES,
  PRESENCE_RATE_WINDOW_MS,
  type PresentMember,
  sameFocus,
} from "../shared/room-presence.ts";
import { parseRoom, type RoomName } from "../shared/rooms.ts";
import type { ArgusSocket, ArgusSocketServer, SocketData } from "./types.ts";

export interface Presence {
  /** The socket is in the room now (after socket.join): adds its user and tells the room. */
  joined(socket: ArgusSocket, room: RoomName): void;
  /** What the socket's user looks at (kept to itself when they hide it); refused unless the socket is in the room. */
  focus(socket: ArgusSocket, room: RoomName, focus: Focus | null): Promise<void>;
  /** The user now hides their position: drops it from this node's sockets and tells their rooms. */
  hide(userId: string): void;
  /** Stops listening to preference changes (the server closes). */
  close(): void;
}

export interface PresenceOptions {
  /** The next version of a room's presence (default: a counter of this process). */
  nextVersion?: (room: string) => Promise<number | undefined>;
  rateLimits?: RateLimitStore;
  log?: Logger;
}

/** The members of a room from its sockets' data (any node's), in the order their users came. */
export function membersOf(sockets: { data: Partial<SocketData> }[], room: string): PresentMember[] {
  const byUser = new Map<string, { member: PresentMember; at: number }>();
  for (const { data } of sockets) {
    if (!data.actor) continue;
    const said = data.focus?.[room];
    const seen = byUser.get(data.actor.userId);
    if (!seen) {
      byUser.set(data.actor.userId, {
        member: { userId: data.actor.userId, name: data.actor.name, focus: said?.focus ?? null },
        at: said?.at ?? -1,
      });
    } else if (said && said.at > seen.at) {
      seen.member.focus = said.focus;
      seen.at = said.at;
    }
  }
  return [...byUser.values()].map((v) => v.member);
}

export function trackPresence(
  io: ArgusSocketServer,
  preferences: UserPreferences,
  opts: PresenceOptions = {},
): Presence {
  const limiter = createRateLimiter({
    max: PRESENCE_RATE_UPDATES,
    windowMs: PRESENCE_RATE_WINDOW_MS,
    store: opts.rateLimits,
    name: "presence",
    message: (s) => `Too many position updates; the next one is accepted in ${s} s.`,
  });
  const counters = new Map<string, number>();
  const nextVersion =
    opts.nextVersion ??
    (async (room: string) => {
      const v = (counters.get(room) ?? 0) + 1;
      counters.set(room, v);
      return v;
    });

  // One announcement per room at a time; changes meanwhile are covered by one more after it.
  const telling = new Map<string, boolean>();
  function tell(room: string): void {
    if (telling.has(room)) {
      telling.set(room, true);
      return;
    }
    telling.set(room, false);
    void announce(room).finally(() => {
      const again = telling.get(room);
      telling.delete(room);
      if (again) tell(room);
    });
  }

  async function announce(room: string): Promise<void> {
    try {
      const version = await nextVersion(room).catch(() => undefined);
      const sockets = await io
        .in(room)
        .fetchSockets()
        .catch(async (err: unknown) => {
          // Other nodes did not answer (Redis away): this node's own sockets, rather than nothing.
          opts.log?.warn({ err: (err as Error).message, room }, "presence: other nodes did not answer");
          return io.in(room).local.fetchSockets();
        });
      if (sockets.length === 0) counters.delete(room); // nobody left to tell
      io.to(room).emit("presence", { room, members: membersOf(sockets, room), ...(version ? { version } : {}) });
    } catch (err) {
      opts.log?.error({ err, room }, "presence not announced");
    }
  }

  // The latest choice announced in this process per user, and a count of announcements: a database
  // read that started before an announcement must not override it (the read may predate the save).
  const announced = new Map<string, { hidden: boolean; version: number }>();
  async function hidesPosition(userId: string): Promise<boolean> {
    const before = announced.get(userId)?.version ?? 0;
    const { hidePosition } = await preferences.of(userId);
    const now = announced.get(userId);
    return now && now.version !== before ? now.hidden : hidePosition;
  }

  function hide(userId: string): void {
    const rooms = new Set<string>();
    for (const socket of io.of("/").sockets.values()) {
      if (socket.data.actor?.userId !== userId || !socket.data.focus) continue;
      for (const [room, said] of Object.entries(socket.data.focus)) {
        if (said.focus === null) continue;
        socket.data.focus[room] = { focus: null, at: Date.now() };
        rooms.add(room);
      }
    }
    for (const room of rooms) tell(room);
  }

  const unsubscribe = preferences.onChange(({ userId, hidePosition }) => {
    announced.set(userId, { hidden: hidePosition, version: (announced.get(userId)?.version ?? 0) + 1 });
    if (hidePosition) hide(userId); // (shown again: the browser says its position again)
  });

  io.of("/").adapter.on("leave-room", (room: string, socketId: string) => {
    if (room === socketId || !parseRoom(room)) return;
    const socket = io.of("/").sockets.get(socketId);
    if (socket?.data.focus) delete socket.data.focus[room];
    tell(room);
  });

  return {
    joined(socket, room) {
      socket.data.focus ??= {};
      tell(room);
    },
    async focus(socket, room, wanted) {
      const { userId } = socket.data.actor;
      const said = () => {
        if (!socket.rooms.has(room)) throw invalid("Join the room first, then say what you look at.");
        return socket.data.focus?.[room]?.focus ?? null;
      };
      if (sameFocus(said(), wanted)) return;
      await limiter.hit(userId);
      const focus = wanted && (await hidesPosition(userId)) ? null : wanted;
      // The socket may have left while the choice was read.
      if (sameFocus(said(), focus)) return;
      socket.data.focus = { ...socket.data.focus, [room]: { focus, at: Date.now() } };
      tell(room);
    },
    hide,
    close: unsubscribe,
  };
}
