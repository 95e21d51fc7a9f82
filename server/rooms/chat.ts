/**
 * Team chat in every room: messages are rows of room_message (paged from there) and every change —
 * written, edited, deleted — is also a `chat_message` event of the room carrying the message as it now
 * is, so watchers get it live and a reconnect catches up through the log like any other event.
 * Only the author edits or deletes a message; an edit keeps the earlier text (room_message_edit); a
 * delete drops the text and its earlier versions but keeps the row, so replies around it still read.
 * A message with a thread belongs to a finding of the review whose room it is.
 * @mentions (server/shared/mentions.ts) count only for members of the room's workspace: their tokens
 * are rewritten with the member's real name, any other token becomes plain text; the mentioned and,
 * for a thread, its earlier writers are told (server/notifications).
 *
 * The caller (the socket protocol) has authorized the room for the actor with the message's role;
 * the service checks what only it knows: authorship, the thread's finding, size and rate.
 *
 * The parts: chat-checks.ts (those checks), chat-announce.ts (the events and notifications of a
 * message), chat-view.ts (a message as watchers see it), chat-history.ts (pages and earlier texts).
 */
import { requireUser, type Actor } from "../auth/access.ts";
import type { Db } from "../db/client.ts";
import { invalid } from "../errors.ts";
import type { EventBus } from "../events/bus.ts";
import type { Notifier } from "../notifications/service.ts";
import { CHAT_RATE_MESSAGES, CHAT_RATE_WINDOW_MS, type ChatEdit, type ChatMessage } from "../shared/room-chat.ts";
import type { RoomName } from "../shared/rooms.ts";
import type { AuthorizedRoom } from "./access.ts";
import { createRateLimiter, type RateLimitStore } from "../lib/rate-limit.ts";
import { announce, tell } from "./chat-announce.ts";
import { checkThread, ownMessage, resolveMentions } from "./chat-checks.ts";
import { chatEdits, chatPage } from "./chat-history.ts";
import { chatMessageView } from "./chat-view.ts";

export interface SendInput {
  body: string;
  thread: string | null;
}

export function createRoomChat(deps: {
  db: Db;
  events: EventBus;
  notify: Notifier;
  now?: () => number;
  rateLimits?: RateLimitStore;
  /** Told of every message sent (Ask Argus takes up `@argus …`); it says its own errors in the room. */
  onSend?: (actor: NonNullable<Actor>, room: AuthorizedRoom, message: ChatMessage) => Promise<void>;
}) {
  const { db, notify } = deps;
  const limiter = createRateLimiter({
    max: CHAT_RATE_MESSAGES,
    windowMs: CHAT_RATE_WINDOW_MS,
    now: deps.now,
    store: deps.rateLimits,
    name: "chat",
    message: (s) =>
      `You are sending messages faster than ${CHAT_RATE_MESSAGES} in ${CHAT_RATE_WINDOW_MS / 1000} s; try again in ${s} s.`,
  });

  return {
    /**
     * What someone said on a pull request about a finding (server/forges/feedback.ts: a reply or a
     * reaction on Argus's comment), in the finding's thread. Its author is the forge's user
     * (`github:<login>`); no mentions are resolved and no rate applies (deliveries are deduplicated).
     */
    async fromForge(room: RoomName, thread: string, authorId: string, body: string): Promise<ChatMessage> {
      await checkThread(db, room, thread);
      const text = body.length > 8000 ? `${body.slice(0, 8000)}…` : body;
      const m = await db.roomMessage.create({
        data: { uid: crypto.randomUUID(), room, thread, authorId, body: text },
      });
      return (await announce(deps, room, m)).message;
    },

    async send(actor: Actor, room: AuthorizedRoom, input: SendInput): Promise<ChatMessage> {
      const user = requireUser(actor);
      if (input.thread !== null) await checkThread(db, room.name, input.thread);
      await limiter.hit(user.userId);
      const { body, mentioned } = await resolveMentions(db, room, input.body);
      const m = await db.roomMessage.create({
        data: { uid: crypto.randomUUID(), room: room.name, thread: input.thread, authorId: user.userId, body },
      });
      // Argus first (an answer waits on the model), then the people told of the message. Argus does not
      // wait for the message's event to be stored: the bus keeps the room's events in publish order, so
      // its thread still comes after the message.
      const announced = announce(deps, room.name, m, user.name);
      announced.catch(() => undefined); // awaited below; not unhandled while Argus is asked
      const message = chatMessageView(m, user.name);
      await deps.onSend?.(user, room, message);
      const sent = await announced;
      await tell(notify, room, m, sent, mentioned, true);
      return sent.message;
    },

    async edit(actor: Actor, room: AuthorizedRoom, input: { id: string; body: string }): Promise<ChatMessage> {
      const user = requireUser(actor);
      const m = await ownMessage(db, user, room.name, input.id);
      const { body, mentioned } = await resolveMentions(db, room, input.body);
      if (m.body === body) return chatMessageView(m, user.name);
      await limiter.hit(user.userId);
      const updated = await db.$transaction(async (tx) => {
        await tx.roomMessageEdit.create({ data: { messageId: m.id, version: m.version, body: m.body } });
        // Only from the version read: two edits at once cannot both build on it.
        const { count } = await tx.roomMessage.updateMany({
          where: { id: m.id, version: m.version, deletedAt: null },
          data: { body, version: m.version + 1, editedAt: new Date() },
        });
        if (count === 0) throw invalid("That message changed meanwhile; load it again and retry.");
        return tx.roomMessage.findUniqueOrThrow({ where: { id: m.id } });
      });
      const sent = await announce(deps, room.name, updated);
      // Only people newly mentioned hear of it: one notification per person and message.
      await tell(notify, room, updated, sent, mentioned, false);
      return sent.message;
    },

    async remove(actor: Actor, room: AuthorizedRoom, input: { id: string }): Promise<ChatMessage> {
      const user = requireUser(actor);
      const m = await ownMessage(db, user, room.name, input.id);
      const deleted = await db.$transaction(async (tx) => {
        await tx.roomMessageEdit.deleteMany({ where: { messageId: m.id } });
        return tx.roomMessage.update({
          where: { id: m.id },
          data: { body: "", deletedAt: new Date(), version: m.version + 1 },
        });
      });
      return (await announce(deps, room.name, deleted)).message;
    },

    /** Up to `limit` messages before `before` (the newest without it), oldest first. */
    page(
      room: AuthorizedRoom,
      input: { thread: string | null; before?: string; limit?: number },
    ): Promise<{ messages: ChatMessage[]; more: boolean }> {
      return chatPage(db, room, input);
    },

    /** The earlier texts of a message, oldest first (none once it is deleted). */
    edits(room: AuthorizedRoom, input: { id: string }): Promise<ChatEdit[]> {
      return chatEdits(db, room, input);
    },
  };
}

export type RoomChat = ReturnType<typeof createRoomChat>;
