/**
 * The Socket.IO handshake: the same session check as tRPC — or, for someone without an account, a
 * review's share link (`auth: { share: token }`), which makes the socket a spectator of that one
 * review room (server/rooms/spectators.ts). A share token is used instead of the session cookie, not
 * beside it: a signed-in member who opens a share link watches as a spectator too.
 *
 * Refusals: a client of another protocol version (`auth: { protocol }`, ROOM_PROTOCOL_VERSION; a page
 * loaded before Argus was updated, or one that sends none) → "outdated" (data: 426, code
 * PROTOCOL_OUTDATED, "reload the page"); no valid session → "unauthorized" (data: 401, "Sign in to
 * continue."); a share link that does not work → "unauthorized" (data: 404 or 403 and why, e.g.
 * revoked or expired).
 */
import { actorFromHeaders, toHeaders } from "../auth/auth.ts";
import type { Services } from "../context.ts";
import { DomainError, HTTP_STATUS } from "../errors.ts";
import { guestActor, spectatorOf } from "../rooms/spectators.ts";
import { PROTOCOL_OUTDATED, ROOM_PROTOCOL_VERSION } from "../shared/room-protocol.ts";
import { clientIp, trustedProxies } from "../web/client-ip.ts";
import type { ArgusSocketServer } from "./types.ts";

const refusal = (status: number, message: string) =>
  Object.assign(new Error("unauthorized"), { data: { status, message } });

export function authenticateSockets(
  io: ArgusSocketServer,
  services: Pick<Services, "auth" | "log" | "shares" | "config">,
): void {
  const proxies = trustedProxies(services.config.trustedProxies);
  io.use(async (socket, next) => {
    try {
      const auth = socket.handshake.auth as Record<string, unknown> | undefined;
      if (auth?.protocol !== ROOM_PROTOCOL_VERSION)
        return next(
          Object.assign(new Error("outdated"), {
            data: {
              status: 426,
              code: PROTOCOL_OUTDATED,
              message: "Argus was updated since this page was loaded: reload the page to continue.",
            },
          }),
        );
      const req = socket.request;
      socket.data.address = clientIp(req.socket.remoteAddress, req.headers["x-forwarded-for"], proxies) ?? "unknown";
      const share: unknown = auth?.share;
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
