/**
 * The Socket.IO handshake: the same session check as tRPC — or, for someone without an account, a
 * review's share link (`auth: { share: token }`), which makes the socket a spectator of that one
 * review room (server/rooms/spectators.ts). A share token is used instead of the session cookie, not
 * beside it: a signed-in member who opens a share link watches as a spectator too.
 *
 * Refusals: no valid session → "unauthorized" (data: 401, "Sign in to continue."); a share link that
 * does not work → "unauthorized" (data: 404 or 403 and why, e.g. revoked or expired).
 */
import { actorFromHeaders, toHeaders } from "../auth/auth.ts";
import type { Services } from "../context.ts";
import { DomainError, HTTP_STATUS } from "../errors.ts";
import { guestActor, spectatorOf } from "../rooms/spectators.ts";
import type { ArgusSocketServer } from "./types.ts";

const refusal = (status: number, message: string) =>
  Object.assign(new Error("unauthorized"), { data: { status, message } });

export function authenticateSockets(io: ArgusSocketServer, services: Pick<Services, "auth" | "log" | "shares">): void {
  io.use(async (socket, next) => {
    try {
      const share: unknown = (socket.handshake.auth as Record<string, unknown> | undefined)?.share;
      if (share !== undefined) {
        if (typeof share !== "string" || share.length === 0 || share.length > 200)
          return next(refusal(400, "That is not a share link token: open the whole link again."));
        const grant = await services.shares.open(share);
        socket.data.actor = guestActor();
        socket.data.spectator = spectatorOf(grant);
        return next();
      }
      const actor = await actorFromHeaders(services.auth, toHeaders(socket.request.headers));
      if (!actor) return next(refusal(401, "Sign in to continue."));
      socket.data.actor = actor;
      socket.data.spectator = null;
      next();
    } catch (err) {
      if (err instanceof DomainError) return next(refusal(HTTP_STATUS[err.kind], err.message));
      services.log.error({ err }, "socket handshake failed");
      next(new Error("handshake failed"));
    }
  });
}
