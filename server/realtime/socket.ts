/**
 * Socket.IO on the app's HTTP server. The handshake runs the same session check as tRPC: no valid
 * session cookie → the connection is refused with "unauthorized" (rooms arrive with later work).
 */
import type { Server as HttpServer } from "node:http";
import { Server } from "socket.io";
import type { Actor } from "../auth/access.ts";
import { actorFromHeaders, toHeaders } from "../auth/auth.ts";
import type { Services } from "../context.ts";

export interface SocketData {
  actor: NonNullable<Actor>;
}

export interface ServerToClientEvents {
  ready: (info: { userId: string }) => void;
}

export type ArgusSocketServer = Server<Record<string, never>, ServerToClientEvents, Record<string, never>, SocketData>;

export function attachSocketServer(httpServer: HttpServer, services: Services): ArgusSocketServer {
  const io: ArgusSocketServer = new Server(httpServer, { serveClient: false });
  io.use(async (socket, next) => {
    try {
      const actor = await actorFromHeaders(services.auth, toHeaders(socket.request.headers));
      if (!actor) return next(Object.assign(new Error("unauthorized"), { data: { status: 401, message: "Sign in to continue." } }));
      socket.data.actor = actor;
      next();
    } catch (err) {
      services.log.error({ err }, "socket handshake failed");
      next(new Error("handshake failed"));
    }
  });
  io.on("connection", (socket) => {
    socket.emit("ready", { userId: socket.data.actor.userId });
  });
  (globalThis as Record<symbol, unknown>)[Symbol.for("argus.io")] = io;
  return io;
}
