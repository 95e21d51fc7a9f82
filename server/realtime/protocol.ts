/**
 * Serving the room protocol on one socket (server/shared/room-protocol.ts): each client→server message
 * is first counted against its budget (server/rooms/message-limits.ts — before anything else, so a
 * flood costs no parsing or database work; a socket refused again and again is disconnected), then
 * parsed with its schema, authorized against the room's workspace with the role the message needs —
 * on every message, not only at join — and handed to its handler; reads of a room's log or chat also
 * and writes wait for a slot (server/rooms/work-slots.ts). Whatever goes wrong comes back as the message's
 * error reply (`{ ok: false, code, message, retryAfterMs? }`); a handler that throws applies nothing.
 */
import type { Services } from "../context.ts";
import { DomainError } from "../errors.ts";
import {
  type Ack,
  type ClientMessage,
  type ClientPayload,
  type ClientReplies,
  clientMessages,
  MESSAGE_ROLES,
} from "../shared/room-protocol.ts";
import { formatZodIssues } from "../shared/zod-issues.ts";
import { type AuthorizedRoom, authorizeRoom } from "../rooms/access.ts";
import { authorizeSpectator, spectatorRefusal } from "../rooms/spectators.ts";
import type { LimitDecision, MessageLimiter } from "../rooms/message-limits.ts";
import { MESSAGE_BUDGETS } from "../rooms/message-limits.ts";
import { RateLimited } from "../lib/rate-limit.ts";
import type { WorkSlots } from "../rooms/work-slots.ts";
import type { ArgusSocket } from "./types.ts";

type Reply<M extends ClientMessage> = M extends keyof ClientReplies ? ClientReplies[M] : void;

/** A message's handler: gets the parsed payload and the room it was authorized for (null: no check). */
export type Handler<M extends ClientMessage> = (
  socket: ArgusSocket,
  payload: ClientPayload<M>,
  room: AuthorizedRoom | null,
) => Promise<Reply<M>>;

export type Handlers = { [M in ClientMessage]: Handler<M> };

/** What limits every socket's messages (one of each per node: the node's read slots are shared). */
export interface SocketLimits {
  messages: MessageLimiter;
  reads: WorkSlots;
  writes: WorkSlots;
}

export function serveProtocol(
  socket: ArgusSocket,
  services: Pick<Services, "db" | "log" | "shares">,
  handlers: Handlers,
  limits: SocketLimits,
): void {
  const { spectator } = socket.data;
  const sender = {
    socketId: socket.id,
    // A guest has no account: its budget is its link's, per address (guests of one link apart).
    personKey: spectator ? `share:${spectator.shareId}:${socket.data.address}` : `user:${socket.data.actor.userId}`,
    guest: !!spectator,
  };
  let dropped = false;
  /** The refusal after which the socket is disconnected. */
  let dropping: Ack<object> | null = null;
  for (const name of Object.keys(clientMessages) as ClientMessage[]) {
    // The payload is whatever the client sent: typed only once the schema has parsed it.
    socket.on(name, (payload: unknown, ack?: unknown) => {
      // A dropped socket's messages still in the pipe get no work and no reply.
      if (dropped) return;
      const reply = (r: Ack<object>) => {
        if (typeof ack === "function") (ack as (r: Ack<object>) => void)(r);
        // After the reply that decided it: the client reads why before the connection closes.
        if (r === dropping) socket.disconnect(true);
      };
      // The socket's own budget is decided here, as the message arrives: a flood that came in one
      // read is refused (and the socket marked for dropping) before any of it waits on anything.
      const local = spectator && spectatorRefusal(name) ? null : limits.messages.checkLocal(sender, name);
      if (local && !local.allowed) return reply(refusedBy(local));
      void dispatch(name, payload).then(reply);
    });
  }
  socket.once("disconnect", () => {
    limits.messages.forget(socket.id);
    limits.reads.forget(socket.id);
    limits.writes.forget(socket.id);
  });

  /** The reply to a refused message; the one that crosses the line marks the socket for dropping. */
  function refusedBy(decision: Extract<LimitDecision, { allowed: false }>): Ack<object> {
    const refused: Ack<object> = { ok: false, code: "rate_limited", ...decision.refusal };
    if (decision.drop && !dropped) {
      dropped = true;
      dropping = refused;
      services.log.warn({ guest: sender.guest }, "socket dropped: messages kept coming past their limit");
    }
    return refused;
  }

  async function dispatch<M extends ClientMessage>(name: M, payload: unknown): Promise<Ack<object>> {
    // What a guest may never send is refused by its kind alone, before anything else is spent on it.
    const never = spectator ? spectatorRefusal(name) : null;
    if (never) return { ok: false, code: never.kind, message: never.message };
    try {
      const decision = await limits.messages.checkShared(sender, name);
      if (!decision.allowed) return refusedBy(decision);
    } catch (err) {
      services.log.error({ err, message: name }, "room message limit check failed");
      return { ok: false, code: "internal", message: `Argus could not handle that ${name} message; try again.` };
    }
    const parsed = clientMessages[name].safeParse(payload);
    if (!parsed.success)
      return {
        ok: false,
        code: "invalid",
        message: `The ${name} message was not understood: ${formatZodIssues(parsed.error, { separator: "; " })}`,
      };
    const data = parsed.data as ClientPayload<M>;
    try {
      const target = (data as { room: string }).room;
      const needed = MESSAGE_ROLES[name];
      // A spectator (share link) is checked against its link and the messages spectators may send;
      // everyone else against their role in the room's workspace.
      const room = spectator
        ? await authorizeSpectator(services.shares, spectator, name, target)
        : needed
          ? await authorizeRoom(services.db, socket.data.actor, target, needed)
          : null;
      const { slot } = MESSAGE_BUDGETS[name];
      const handle = async () => {
        // A read that waited for its slot on a socket dropped meanwhile (a flood's allowed burst) or
        // closed: nobody will get its reply, so the log is not read for it. Writes still happen.
        if (slot === "read" && (dropped || socket.disconnected)) return undefined as Reply<M>;
        return (handlers[name] as Handler<M>)(socket, data, room);
      };
      const result = slot ? await limits[slot === "read" ? "reads" : "writes"].run(socket.id, handle) : await handle();
      return { ok: true, ...(result ?? {}) };
    } catch (err) {
      if (err instanceof DomainError) return { ok: false, code: err.kind, message: err.message };
      if (err instanceof RateLimited) return rateLimited(err);
      services.log.error({ err, message: name }, "room message failed");
      return { ok: false, code: "internal", message: `Argus could not handle that ${name} message; try again.` };
    }
  }
}

const rateLimited = (err: RateLimited): Ack<object> => ({
  ok: false,
  code: "rate_limited",
  message: err.message,
  retryAfterMs: Math.max(1, Math.ceil(err.retryAfterMs)),
});
