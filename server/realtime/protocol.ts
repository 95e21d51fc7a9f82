/**
 * Serving the room protocol on one socket (server/shared/room-protocol.ts): each client→server message
 * is parsed with its schema, authorized against the room's workspace with the role the message needs —
 * on every message, not only at join — and handed to its handler. Whatever goes wrong comes back as
 * the message's error reply, saying what was wrong; a handler that throws applies nothing.
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
import { authorizeSpectator } from "../rooms/spectators.ts";
import { RateLimited } from "../rooms/rate-limit.ts";
import type { ArgusSocket } from "./types.ts";

type Reply<M extends ClientMessage> = M extends keyof ClientReplies ? ClientReplies[M] : void;

/** A message's handler: gets the parsed payload and the room it was authorized for (null: no check). */
export type Handler<M extends ClientMessage> = (
  socket: ArgusSocket,
  payload: ClientPayload<M>,
  room: AuthorizedRoom | null,
) => Promise<Reply<M>>;

export type Handlers = { [M in ClientMessage]: Handler<M> };

export function serveProtocol(
  socket: ArgusSocket,
  services: Pick<Services, "db" | "log" | "shares">,
  handlers: Handlers,
): void {
  for (const name of Object.keys(clientMessages) as ClientMessage[]) {
    // The payload is whatever the client sent: typed only once the schema has parsed it.
    socket.on(name, (payload: unknown, ack?: unknown) => {
      const reply = (r: Ack<object>) => {
        if (typeof ack === "function") (ack as (r: Ack<object>) => void)(r);
      };
      void dispatch(name, payload).then(reply);
    });
  }

  async function dispatch<M extends ClientMessage>(name: M, payload: unknown): Promise<Ack<object>> {
    const parsed = clientMessages[name].safeParse(payload);
    if (!parsed.success)
      return {
        ok: false,
        error: `The ${name} message was not understood: ${formatZodIssues(parsed.error, { separator: "; " })}`,
      };
    const data = parsed.data as ClientPayload<M>;
    try {
      const target = (data as { room: string }).room;
      const needed = MESSAGE_ROLES[name];
      // A spectator (share link) is checked against its link and the messages spectators may send;
      // everyone else against their role in the room's workspace.
      const { spectator } = socket.data;
      const room = spectator
        ? await authorizeSpectator(services.shares, spectator, name, target)
        : needed
          ? await authorizeRoom(services.db, socket.data.actor, target, needed)
          : null;
      const result = await (handlers[name] as Handler<M>)(socket, data, room);
      return { ok: true, ...(result ?? {}) };
    } catch (err) {
      if (err instanceof DomainError) return { ok: false, error: err.message };
      if (err instanceof RateLimited) return { ok: false, error: err.message, retryAfterMs: err.retryAfterMs };
      services.log.error({ err, message: name }, "room message failed");
      return { ok: false, error: `Argus could not handle that ${name} message; try again.` };
    }
  }
}
