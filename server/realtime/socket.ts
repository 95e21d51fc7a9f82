/**
 * Socket.IO on the app's HTTP server. The handshake is refused (403) when it comes from another site's
 * page (Origin, server/web/origin.ts), then runs the same session check as tRPC: no valid session
 * cookie → the connection is refused with "unauthorized". A client then joins rooms
 * (rooms.ts decides who may): the join answers with the room's persisted events after `afterSeq`,
 * and every event published on the bus afterwards arrives live as "event". Rights are checked again
 * every RECHECK_MS (`recheckSockets`): a signed-out session is disconnected, and a room its user may no
 * longer watch is left with a "revoked" message — a long-lived socket keeps no rights it lost. When a
 * membership changes (a member removed, a role changed, someone left), the workspace service says so
 * and that user's sockets are checked at once; the periodic check stays as the backstop (other nodes,
 * a join that was being authorized while the membership changed).
 */
import type { Server as HttpServer, ServerResponse } from "node:http";
import { Server } from "socket.io";
import type { Actor } from "../auth/access.ts";
import { actorFromHeaders, toHeaders } from "../auth/auth.ts";
import type { Services } from "../context.ts";
import { DomainError } from "../errors.ts";
import type { RoomEvent } from "../events/bus.ts";
import { handshakeOriginRefusal } from "../web/origin.ts";
import { setSecurityHeaders } from "../web/security-headers.ts";
import { authorizeRoom } from "./rooms.ts";

export interface SocketData {
  actor: NonNullable<Actor>;
}

export interface ServerToClientEvents {
  ready: (info: { userId: string }) => void;
  /** A live event of a joined room. */
  event: (event: RoomEvent) => void;
  /** The user may no longer watch this room (it was deleted, or their access was): it was left. */
  revoked: (room: string, reason: string) => void;
}

export type JoinReply = { ok: true; events: RoomEvent[] } | { ok: false; error: string };

export interface ClientToServerEvents {
  join: (room: string, afterSeq: number, reply: (r: JoinReply) => void) => void;
  leave: (room: string) => void;
}

export type ArgusSocketServer = Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;

/** How often live sockets' rights are checked again: the longest a revoked right keeps working. */
export const RECHECK_MS = 30_000;

export function attachSocketServer(httpServer: HttpServer, services: Services): ArgusSocketServer {
  const io: ArgusSocketServer = new Server(httpServer, {
    serveClient: false,
    // A page on another site must not open a socket with the visitor's cookies (the WebSocket
    // handshake is not covered by CORS): the same Origin rule as state-changing HTTP requests.
    allowRequest: (req, callback) => {
      const refusal = handshakeOriginRefusal(req.headers, services.config.allowedOrigins);
      callback(refusal, refusal === null);
    },
  });
  // Engine.IO answers /socket.io/ itself (polling responses, handshake errors): same headers as the rest.
  io.engine.use((_req: unknown, res: ServerResponse, next: () => void) => {
    setSecurityHeaders(res);
    next();
  });
  io.use(async (socket, next) => {
    try {
      const actor = await actorFromHeaders(services.auth, toHeaders(socket.request.headers));
      if (!actor)
        return next(
          Object.assign(new Error("unauthorized"), { data: { status: 401, message: "Sign in to continue." } }),
        );
      socket.data.actor = actor;
      next();
    } catch (err) {
      services.log.error({ err }, "socket handshake failed");
      next(new Error("handshake failed"));
    }
  });
  // One bus subscription per room with watchers in this process, dropped when the last one leaves.
  const bridges = new Map<string, () => void>();
  io.of("/").adapter.on("delete-room", (room: string) => {
    bridges.get(room)?.();
    bridges.delete(room);
  });

  io.on("connection", (socket) => {
    socket.on("join", async (room, afterSeq, reply) => {
      if (typeof reply !== "function") return;
      try {
        const name = await authorizeRoom(services.db, socket.data.actor, room);
        // Join before reading the log, so nothing published in between is missed (the client drops
        // live events it already has by seq).
        await socket.join(name);
        if (!bridges.has(name))
          bridges.set(
            name,
            services.events.subscribe(name, (e) => io.to(name).emit("event", e)),
          );
        const after = Number.isInteger(afterSeq) && afterSeq > 0 ? afterSeq : 0;
        reply({ ok: true, events: await services.events.history(name, after) });
      } catch (err) {
        if (!(err instanceof DomainError)) services.log.error({ err, room }, "room join failed");
        reply({ ok: false, error: err instanceof DomainError ? err.message : "That is not a room you can join." });
      }
    });
    socket.on("leave", (room) => {
      if (typeof room === "string") void socket.leave(room);
    });
    socket.emit("ready", { userId: socket.data.actor.userId });
  });
  // One check at a time: a slow database must not pile runs on top of each other.
  let checking = false;
  const recheck = setInterval(() => {
    if (checking) return;
    checking = true;
    recheckSockets(io, services)
      .catch((err: unknown) => services.log.error({ err }, "socket recheck failed"))
      .finally(() => (checking = false));
  }, RECHECK_MS);
  recheck.unref();
  // Awaited by the service: when a removal returns, this node's sockets of that user have left.
  const unsubscribe = services.workspaces.onMembershipChanged(async ({ userId }) => {
    await recheckSockets(io, services, { userId });
  });
  httpServer.once("close", () => {
    clearInterval(recheck);
    unsubscribe();
  });
  (globalThis as Record<symbol, unknown>)[Symbol.for("argus.io")] = io;
  return io;
}

/**
 * Check connected sockets' sessions and joined rooms again (see the file comment): every socket, or
 * only the sockets of `only.userId`.
 */
export async function recheckSockets(
  io: ArgusSocketServer,
  services: Services,
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
      if (room === local.id) continue;
      try {
        await authorizeRoom(services.db, actor, room);
      } catch (err) {
        if (!(err instanceof DomainError)) {
          // Not a verdict (e.g. the database hiccuped): keep the room, check again next time.
          services.log.warn({ err, room }, "socket recheck: room check failed");
          continue;
        }
        await local.leave(room);
        local.emit("revoked", room, err.message);
        revoked++;
      }
    }
  }
  return { disconnected, revoked };
}
