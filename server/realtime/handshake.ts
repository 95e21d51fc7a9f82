/**
 * The Socket.IO handshake: the same session check as tRPC. No valid session cookie → the connection
 * is refused with "unauthorized" (data: 401 and what to do).
 */
import { actorFromHeaders, toHeaders } from "../auth/auth.ts";
import type { Services } from "../context.ts";
import type { ArgusSocketServer } from "./types.ts";

export function authenticateSockets(io: ArgusSocketServer, services: Pick<Services, "auth" | "log">): void {
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
}
