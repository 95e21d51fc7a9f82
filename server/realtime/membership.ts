/**
 * Being in a room: join (the log after the client's last seq, then live events; presence.ts counts
 * the user in), history (the next page of the log), leave, what one looks at — and the periodic re-check that takes away what a socket may no longer
 * have: a signed-out session is disconnected, a room its user may no longer watch is left with a
 * "revoked" message. A spectator's socket (a share link) is checked against its link: revoked, expired
 * or its review deleted → "revoked" for its room, then disconnected (it has no other use).
 */
import type { Actor } from "../auth/access.ts";
import { actorFromHeaders, toHeaders } from "../auth/auth.ts";
import type { Services } from "../context.ts";
import type { ArgusSocket } from "./types.ts";
import { DomainError } from "../errors.ts";
import { HISTORY_PAGE, type HistoryReply, REPLY_MAX_BYTES } from "../shared/room-protocol.ts";
import { fitFromStart } from "../shared/reply-bytes.ts";
import type { RoomName } from "../shared/rooms.ts";
import { type RoomBridge, spectatorsOf } from "./bridge.ts";
import type { Presence } from "./presence.ts";
import type { Handlers } from "./protocol.ts";
import { authorizeRoom } from "../rooms/access.ts";
import { HIDDEN_FROM_SPECTATORS } from "../rooms/spectators.ts";
import type { ArgusSocketServer } from "./types.ts";
import { userRoom } from "./user-sockets.ts";

export function membershipHandlers(
  services: Pick<Services, "events">,
  bridge: RoomBridge,
  presence: Presence,
): Pick<Handlers, "join" | "leave" | "history" | "presence.update"> {
  const page = async (socket: ArgusSocket, room: RoomName, afterSeq: number): Promise<HistoryReply> => {
    // A spectator's pages leave out what spectators are not sent live either (see bridge.ts).
    const omitTypes = socket.data.spectator ? HIDDEN_FROM_SPECTATORS : undefined;
    const events = await services.events.history(room, afterSeq, HISTORY_PAGE + 1, {
      omitTypes,
      maxBytes: REPLY_MAX_BYTES,
    });
    // At most HISTORY_PAGE events and REPLY_MAX_BYTES: the client asks again after the last one.
    const { kept, cut } = fitFromStart(events.slice(0, HISTORY_PAGE), REPLY_MAX_BYTES);
    return { events: kept, more: cut || events.length > HISTORY_PAGE };
  };
  return {
    async join(socket, { afterSeq }, room) {
      // Join before reading the log, so nothing published in between is missed (the client drops
      // live events it already has by seq).
      // A spectator is in the room's spectators group first: an event sent between the two joins
      // must already find it excluded (what spectators may not see goes to the room except them).
      if (socket.data.spectator) await socket.join(spectatorsOf(room!.name));
      await socket.join(room!.name);
      bridge.watch(room!.name);
      presence.joined(socket, room!.name);
      return page(socket, room!.name, afterSeq);
    },
    async leave(socket, { room }) {
      await socket.leave(room);
      if (socket.data.spectator) await socket.leave(spectatorsOf(room));
    },
    history: async (socket, { afterSeq }, room) => page(socket, room!.name, afterSeq),
    "presence.update": async (socket, { focus }, room) => {
      await presence.focus(socket, room!.name, focus);
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
    // A spectator has no session: its share link is checked by recheckSpectators.
    if (local.data.spectator) continue;
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

/** The longest timer Node keeps (about 24.8 days); a later expiry is left to the periodic re-check. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Ends a spectator's room when its link stops working. */
async function evictSpectator(socket: ArgusSocket, reason: string): Promise<void> {
  const { spectator } = socket.data;
  if (!spectator) return;
  if (socket.rooms.has(spectator.room)) await socket.leave(spectator.room);
  await socket.leave(spectatorsOf(spectator.room));
  socket.emit("revoked", { room: spectator.room, reason });
  // Queued after the "revoked" message: the client hears why before the connection closes.
  socket.disconnect(true);
}

/**
 * Check spectators' share links again (all, or the sockets of one link): a link that no longer works
 * takes its sockets' room away at once (see the file comment).
 */
export async function recheckSpectators(
  io: ArgusSocketServer,
  services: Pick<Services, "shares" | "log">,
  only?: { shareId: string },
): Promise<{ revoked: number }> {
  let revoked = 0;
  const checks = new Map<string, Promise<string | null | undefined>>();
  for (const local of [...io.sockets.sockets.values()]) {
    const { spectator } = local.data;
    if (!spectator || (only && spectator.shareId !== only.shareId)) continue;
    let check = checks.get(spectator.shareId);
    if (!check) {
      // The reason it stopped working, null while it works, undefined when the check itself failed.
      check = services.shares.check(spectator.shareId).then(
        () => null,
        (err: unknown) => {
          if (err instanceof DomainError) return err.message;
          services.log.warn({ err }, "spectator recheck: share lookup failed; trying again next time");
          return undefined;
        },
      );
      checks.set(spectator.shareId, check);
    }
    const reason = await check;
    if (!reason) continue;
    await evictSpectator(local, reason);
    revoked++;
  }
  return { revoked };
}

/** Re-checks a spectator's socket the moment its link expires (clears itself on disconnect). */
export function expireSpectatorAt(socket: ArgusSocket, services: Pick<Services, "shares" | "log">): void {
  const { spectator } = socket.data;
  if (!spectator) return;
  const delay = spectator.expiresAt.getTime() - Date.now() + 50;
  if (delay > MAX_TIMER_MS) return;
  const timer = setTimeout(
    () => {
      services.shares.check(spectator.shareId).then(
        () => undefined,
        (err: unknown) => {
          if (err instanceof DomainError) void evictSpectator(socket, err.message);
          else services.log.warn({ err }, "spectator expiry check failed; the periodic re-check follows");
        },
      );
    },
    Math.max(0, delay),
  );
  timer.unref();
  socket.once("disconnect", () => clearTimeout(timer));
}
