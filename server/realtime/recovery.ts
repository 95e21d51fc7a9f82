/**
 * Connection state recovery across nodes, checked again. Socket.IO restores a reconnecting socket's
 * rooms and sends the packets it missed before any of our code runs (even before the handshake
 * middleware, which still runs and can refuse the socket). So the restore itself is checked: every
 * restored room is authorized again for the socket's user — a spectator's against its share link —
 * and rooms that fail, with their missed packets, are dropped. A socket then never gets back a room
 * (or a packet of one) its user may no longer see; the client's own join after reconnecting reads
 * whatever else it missed from the log.
 */
import type { Services } from "../context.ts";
import { DomainError } from "../errors.ts";
import { authorizeRoom } from "../rooms/access.ts";
import { authorizeSpectator } from "../rooms/spectators.ts";
import type { ArgusSocketServer, SocketData } from "./types.ts";
import { userRoom } from "./user-sockets.ts";
import { spectatorsOf } from "./bridge.ts";

interface RestoredSession {
  sid: string;
  pid: string;
  rooms: string[];
  data: Partial<SocketData>;
  missedPackets: unknown[][];
}

/** Whether the restored socket may still be in `room` (a failed check is a no: the client re-joins). */
async function stillAllowed(
  services: Pick<Services, "db" | "shares" | "log">,
  data: Partial<SocketData>,
  room: string,
) {
  try {
    if (data.spectator) {
      await authorizeSpectator(services.shares, data.spectator, "join", room);
      return true;
    }
    if (!data.actor) return false;
    await authorizeRoom(services.db, data.actor, room);
    return true;
  } catch (err) {
    if (!(err instanceof DomainError)) services.log.warn({ err, room }, "recovery: room check failed; left");
    return false;
  }
}

/** The room a missed packet was sent to (every room message of the protocol names it). */
function roomOf(packet: unknown[]): unknown {
  const payload = packet[1];
  return typeof payload === "object" && payload !== null ? (payload as { room?: unknown }).room : undefined;
}

/** A missed packet the restored socket may still get: one of an allowed room, or its own inbox push. */
function keep(packet: unknown[], allowed: Set<string>, inbox: string | null): boolean {
  if (packet[0] === "notification") return inbox !== null && allowed.has(inbox);
  const room = roomOf(packet);
  return typeof room === "string" && allowed.has(room);
}

export function checkRecoveredSessions(io: ArgusSocketServer, services: Pick<Services, "db" | "shares" | "log">): void {
  const adapter = io.of("/").adapter as unknown as {
    restoreSession(pid: string, offset: string): Promise<RestoredSession | null>;
  };
  const restore = adapter.restoreSession.bind(adapter);
  adapter.restoreSession = async (pid, offset) => {
    const session = await restore(pid, offset);
    if (!session) return session;
    // Its own id and (a signed-in user's) own inbox room (user-sockets.ts) are the socket's by nature.
    const allowed = new Set<string>([session.sid]);
    if (session.data.actor && !session.data.spectator) allowed.add(userRoom(session.data.actor.userId));
    for (const room of session.rooms) {
      if (!allowed.has(room) && (await stillAllowed(services, session.data, room))) allowed.add(room);
    }
    // A spectator is always in its room's spectators room while in the room: the events hidden from
    // spectators go to the room except that one (bridge.ts) — leaving it out would show them.
    const spectator = session.data.spectator;
    if (spectator && allowed.has(spectator.room)) allowed.add(spectatorsOf(spectator.room));
    session.rooms = session.rooms.filter((r) => allowed.has(r));
    if (spectator && allowed.has(spectator.room) && !session.rooms.includes(spectatorsOf(spectator.room)))
      session.rooms.push(spectatorsOf(spectator.room));
    const inbox = session.data.actor && !session.data.spectator ? userRoom(session.data.actor.userId) : null;
    session.missedPackets = session.missedPackets.filter((p) => keep(p, allowed, inbox));
    return session;
  };
}
