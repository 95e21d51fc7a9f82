/**
 * Being in a room: join (the log after the client's last seq, then live events; presence.ts counts
 * the user in), history (the next page of the log), leave, what one looks at — and the periodic re-check that takes away what a socket may no longer
 * have: a signed-out session is disconnected, a room its user may no longer watch is left with a
 * "revoked" message.
 */
import type { Actor } from "../auth/access.ts";
import { actorFromHeaders, toHeaders } from "../auth/auth.ts";
import type { Services } from "../context.ts";
import { DomainError } from "../errors.ts";
import { HISTORY_PAGE, type HistoryReply } from "../shared/room-protocol.ts";
import type { RoomName } from "../shared/rooms.ts";
import type { RoomBridge } from "./bridge.ts";
import type { Presence } from "./presence.ts";
import type { Handlers } from "./protocol.ts";
import { authorizeRoom } from "../rooms/access.ts";
import type { ArgusSocketServer } from "./types.ts";
import { userRoom } from "./user-sockets.ts";

export function membershipHandlers(
  services: Pick<Services, "events">,
  bridge: RoomBridge,
  presence: Presence,
): Pick<Handlers, "join" | "leave" | "history" | "presence.update"> {
  const page = async (room: RoomName, afterSeq: number): Promise<HistoryReply> => {
    const events = await services.events.history(room, afterSeq, HISTORY_PAGE + 1);
    return { events: events.slice(0, HISTORY_PAGE), more: events.length > HISTORY_PAGE };
  };
  return {
    async join(socket, { afterSeq }, room) {
      // Join before reading the log, so nothing published in between is missed (the client drops
      // live events it already has by seq).
      await socket.join(room!.name);
      bridge.watch(room!.name);
      presence.joined(socket, room!.name);
      return page(room!.name, afterSeq);
    },
    async leave(socket, { room }) {
      await socket.leave(room);
    },
    history: async (_socket, { afterSeq }, room) => page(room!.name, afterSeq),
    "presence.update": async (socket, { focus }, room) => {
      presence.focus(socket, room!.name, focus);
      return {};
    },
  };
}

/** Check every connected socket's session and joined rooms again (see the file comment). */
export async function recheckSockets(
  io: ArgusSocketServer,
  services: Pick<Services, "auth" | "db" | "log">,
  only?: { userId: string },
): Promise<{ disconnected: number; revoked: number }> {
  let disconnected = 0;
  let revoked = 0;
  // This process's sockets (with several nodes, each checks its own); one session lookup per cookie.
  const sessions = new Map<string, Promise<Actor | undefined>>();
  for (const local of [...io.sockets.sockets.values()]) {
    if (only && local.data.actor.userId !== only.userId) continue;
    const cookie = String(local.request.headers.cookie ?? "");
    let lookup = sessions.get(cookie);
    if (!lookup) {
      lookup = actorFromHeaders(services.auth, toHeaders(local.request.headers), { refresh: false }).catch(
        (err: unknown) => {
          services.log.warn({ err }, "socket recheck: session lookup failed; trying again next time");
          return undefined;
        },
      );
      sessions.set(cookie, lookup);
    }
    const actor = await lookup;
    if (actor === undefined) continue;
    if (!actor || actor.userId !== local.data.actor.userId) {
      local.disconnect(true);
      disconnected++;
      continue;
    }
    for (const room of local.rooms) {
      // Its own id and its user's room are not rooms of the protocol (user-sockets.ts).
      if (room === local.id || room === userRoom(local.data.actor.userId)) continue;
      try {
        await authorizeRoom(services.db, actor, room);
      } catch (err) {
        if (!(err instanceof DomainError)) {
          // Not a verdict (e.g. the database hiccuped): keep the room, check again next time.
          services.log.warn({ err, room }, "socket recheck: room check failed");
          continue;
        }
        await local.leave(room);
        local.emit("revoked", { room, reason: err.message });
        revoked++;
      }
    }
  }
  return { disconnected, revoked };
}
