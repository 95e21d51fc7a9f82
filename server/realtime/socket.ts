/**
 * Socket.IO on the app's HTTP server, assembled from small parts: the handshake (refused with 403 from
 * another site's page — Origin, server/web/origin.ts — then handshake.ts: the protocol version and the
 * same session check as tRPC), the room protocol (protocol.ts: every message within its budget —
 * server/rooms/message-limits.ts, work-slots.ts — parsed and authorized),
 * its handlers (membership.ts: join / leave / history / presence; chat-handlers.ts; reaction-handlers.ts;
 * typing-handlers.ts; team-handlers.ts; steer-handlers.ts), who is in each
 * room (presence.ts), the bus→room adapter (bridge.ts), and the
 * periodic re-check of live sockets' rights (membership.ts `recheckSockets`, every RECHECK_MS), and
 * each user's own room for what is pushed to them (user-sockets.ts: new notifications).
 * When a membership changes, the workspace service says so and that user's sockets are checked at
 * once; likewise a revoked share link's spectator sockets (and a link's own expiry has a timer); the
 * periodic check stays as the backstop.
 */
import type { Server as HttpServer, ServerResponse } from "node:http";
import { Server } from "socket.io";
import type { Services } from "../context.ts";
import { handshakeOriginRefusal } from "../web/origin.ts";
import { setSecurityHeaders } from "../web/security-headers.ts";
import { bridgeRooms } from "./bridge.ts";
import { clusterAdapter, RECOVERY_MS } from "./cluster.ts";
import { checkRecoveredSessions } from "./recovery.ts";
import { chatHandlers } from "./chat-handlers.ts";
import { coeditHandlers, createCoedit } from "./coedit-handlers.ts";
import { authenticateSockets } from "./handshake.ts";
import { expireSpectatorAt, membershipHandlers, recheckSockets, recheckSpectators } from "./membership.ts";
import { trackPresence } from "./presence.ts";
import { serveProtocol, type SocketLimits } from "./protocol.ts";
import { createMessageLimiter } from "../rooms/message-limits.ts";
import { createWorkSlots, READ_SLOTS, WRITE_SLOTS } from "../rooms/work-slots.ts";
import { reactionHandlers } from "./reaction-handlers.ts";
import { steerHandlers } from "./steer-handlers.ts";
import { teamHandlers } from "./team-handlers.ts";
import { typingHandlers } from "./typing-handlers.ts";
import { INTER_SERVER_EVENTS, otherNodes } from "./other-nodes.ts";
import type { ArgusSocketServer } from "./types.ts";
import { joinUserRoom, pushNotifications } from "./user-sockets.ts";

export { recheckSockets, recheckSpectators } from "./membership.ts";
export type { ArgusSocket, ArgusSocketServer, SocketData } from "./types.ts";

/** The largest frame a client may send. */
export const MAX_FRAME_BYTES = 64 * 1024;

/** How often live sockets' rights are checked again: the longest a revoked right keeps working. */
export const RECHECK_MS = 30_000;

export function attachSocketServer(httpServer: HttpServer, services: Services): ArgusSocketServer {
  const { redis } = services;
  // A client message is small (a chat message is at most 16 KB): a bigger frame closes the socket
  // instead of being buffered (Socket.IO's default accepts 1 MB).
  const io: ArgusSocketServer = new Server(httpServer, {
    serveClient: false,
    maxHttpBufferSize: MAX_FRAME_BYTES,
    // Across nodes (cluster.ts): rooms span every web node, and a socket that reconnects — to any
    // node — within RECOVERY_MS gets its rooms and missed packets back, re-checked (recovery.ts) and
    // after the handshake's session check again (middlewares are not skipped).
    ...(redis
      ? {
          adapter: clusterAdapter(redis, { waitForRedis: false }),
          connectionStateRecovery: { maxDisconnectionDuration: RECOVERY_MS, skipMiddlewares: false },
        }
      : {}),
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
  if (redis) checkRecoveredSessions(io, services);
  authenticateSockets(io, services);
  const bridge = bridgeRooms(io, services.events, { everyRoom: !!redis });
  const presence = trackPresence(io, services.preferences, {
    rateLimits: services.rateLimits,
    log: services.log,
    ...(redis ? { nextVersion: (room: string) => redis.count("presence", room) } : {}),
  });
  const coedit = createCoedit(io, services);
  const membership = membershipHandlers(services, bridge, presence);
  const handlers = {
    ...membership,
    // Leaving a room closes its shared draft for the socket (its cursors go).
    leave: async (...args: Parameters<typeof membership.leave>) => {
      coedit.close(args[0].id, args[1].room);
      return membership.leave(...args);
    },
    ...coeditHandlers(coedit),
    ...chatHandlers(services.roomChat, services.roomReactions),
    ...reactionHandlers(services.roomReactions),
    ...typingHandlers({ rateLimits: services.rateLimits }),
    ...teamHandlers(services.findingTeam),
    ...steerHandlers(services.steering),
  };

  // Every message's budget (per socket here, per person in the shared store) and the node's read slots.
  const limits: SocketLimits = {
    messages: createMessageLimiter({ store: services.rateLimits }),
    reads: createWorkSlots(READ_SLOTS, "reads of rooms' logs"),
    writes: createWorkSlots(WRITE_SLOTS, "changes"),
  };
  const unpush = pushNotifications(io, services.notifications.notify);
  io.on("connection", (socket) => {
    joinUserRoom(socket);
    serveProtocol(socket, services, handlers, limits);
    socket.once("disconnect", () => coedit.close(socket.id));
    expireSpectatorAt(socket, services);
    socket.emit("ready", { userId: socket.data.actor.userId });
  });
  // One check at a time: a slow database must not pile runs on top of each other.
  let checking = false;
  const recheck = setInterval(() => {
    if (checking) return;
    checking = true;
    Promise.all([recheckSockets(io, services), recheckSpectators(io, services)])
      .catch((err: unknown) => services.log.error({ err }, "socket recheck failed"))
      .finally(() => (checking = false));
  }, RECHECK_MS);
  recheck.unref();
  // Awaited by the service: when a removal returns, that user's sockets have left — on this node, and
  // (across nodes) on every other node that answered in time (other-nodes.ts).
  const others = otherNodes(io, !!redis, services.log);
  const unsubscribe = services.workspaces.onMembershipChanged(async ({ userId }) => {
    await Promise.all([recheckSockets(io, services, { userId }), others.tell("membership", { userId })]);
  });
  others.on("membership", ({ userId }) => recheckSockets(io, services, { userId }));
  // A revoked share link: its spectators lose the room before revoke returns.
  const unsubscribeShares = services.shares.onRevoked(async ({ shareId }) => {
    await Promise.all([recheckSpectators(io, services, { shareId }), others.tell("shareRevoked", { shareId })]);
  });
  others.on("shareRevoked", ({ shareId }) => recheckSpectators(io, services, { shareId }));
  // Hiding one's position takes it out of every node's rooms.
  const unsubscribeHide = services.preferences.onChange(({ userId, hidePosition }) => {
    if (hidePosition) void others.tell("hidePosition", { userId });
  });
  others.on("hidePosition", ({ userId }) => presence.hide(userId));
  // A deleted pipeline or prompt ends its draft's sessions (the notice reaches every node's sockets).
  const unsubscribeDrafts = services.draftEndings.subscribe((room, message) => coedit.end(room, message));
  httpServer.once("close", () => {
    clearInterval(recheck);
    unsubscribe();
    unpush();
    unsubscribeShares();
    unsubscribeHide();
    unsubscribeDrafts();
    presence.close();
    bridge.close();
  });
  (globalThis as Record<symbol, unknown>)[Symbol.for("argus.io")] = io;
  return io;
}

/**
 * A worker node's Socket.IO: no sockets (every connection is refused — people connect to web
 * nodes), only the cluster adapter, through which every event the worker's jobs store reaches the
 * sockets of every web node. Its publishes wait for Redis across an outage (cluster.ts).
 */
export function attachWorkerFanout(httpServer: HttpServer, services: Services): ArgusSocketServer {
  if (!services.redis) throw new Error("A worker node needs REDIS_URL: its events reach web nodes through Redis.");
  const io: ArgusSocketServer = new Server(httpServer, {
    serveClient: false,
    adapter: clusterAdapter(services.redis, { waitForRedis: true }),
    connectionStateRecovery: { maxDisconnectionDuration: RECOVERY_MS, skipMiddlewares: false },
    allowRequest: (_req, callback) => callback("This is an Argus worker: connect to a web node.", false),
  });
  const bridge = bridgeRooms(io, services.events, { everyRoom: true });
  // A review that ends on the worker notifies its starter: the push goes to their sockets on every node.
  const unpush = pushNotifications(io, services.notifications.notify);
  // A worker has no sockets: it confirms the web nodes' messages at once (else they wait for it).
  const others = otherNodes(io, true, services.log);
  for (const event of INTER_SERVER_EVENTS) others.on(event, () => undefined);
  httpServer.once("close", () => {
    bridge.close();
    unpush();
  });
  return io;
}
