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
 */
import { requireUser, type Actor } from "../auth/access.ts";
import type { Db, RoomMessage } from "../db/client.ts";
import { forbidden, invalid, notFound } from "../errors.ts";
import type { EventBus } from "../events/bus.ts";
import type { Notifier } from "../notifications/service.ts";
import { forgePersonName } from "../shared/forge-people.ts";
import { mentionedUserIds, rewriteMentions } from "../shared/mentions.ts";
import {
  chatBodySchema,
  CHAT_PAGE,
  CHAT_RATE_MESSAGES,
  CHAT_RATE_WINDOW_MS,
  type ChatEdit,
  type ChatMessage,
} from "../shared/room-chat.ts";
import { parseRoom, type RoomName } from "../shared/rooms.ts";
import type { AuthorizedRoom } from "./access.ts";
import { createRateLimiter, type RateLimitStore } from "../lib/rate-limit.ts";

export interface SendInput {
  body: string;
  thread: string | null;
}

/** A message as every watcher sees it (an author no longer a user, or a forge's person, by name). */
function view(m: RoomMessage, authorName: string | undefined): ChatMessage {
  return {
    id: m.uid,
    thread: m.thread,
    author: { id: m.authorId, name: authorName ?? forgePersonName(m.authorId) ?? "A former member" },
    body: m.deletedAt ? "" : m.body,
    version: m.version,
    createdAt: m.createdAt.toISOString(),
    editedAt: m.editedAt?.toISOString() ?? null,
    deleted: m.deletedAt !== null,
  };
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
  const { db, events, notify } = deps;
  const limiter = createRateLimiter({
    max: CHAT_RATE_MESSAGES,
    windowMs: CHAT_RATE_WINDOW_MS,
    now: deps.now,
    store: deps.rateLimits,
    name: "chat",
    message: (s) =>
      `You are sending messages faster than ${CHAT_RATE_MESSAGES} in ${CHAT_RATE_WINDOW_MS / 1000} s; try again in ${s} s.`,
  });

  async function names(ids: string[]): Promise<Map<string, string>> {
    const users = await db.user.findMany({
      where: { id: { in: [...new Set(ids)] } },
      select: { id: true, name: true },
    });
    return new Map(users.map((u) => [u.id, u.name]));
  }

  /**
   * Publishes the message's current state; resolves with it and the seq of its event. `authorName`:
   * the author's name when the caller knows it (the actor's own message), else it is read.
   */
  async function announce(
    room: RoomName,
    m: RoomMessage,
    authorName?: string,
  ): Promise<{ message: ChatMessage; seq: number }> {
    const message = view(m, authorName ?? (await names([m.authorId])).get(m.authorId));
    const { seq } = await events.publish(room, { type: "chat_message", payload: message });
    const review = parseRoom(room);
    if (m.thread !== null && review?.kind === "review") {
      // The findings list shows each thread's size; the latest count event is the count.
      const count = await db.roomMessage.count({ where: { room, thread: m.thread, deletedAt: null } });
      await events.publish(review.name, { type: "thread_count", payload: { fingerprint: m.thread, count } });
    }
    return { message, seq };
  }

  /** The text with mentions of the workspace's members kept (real names) and every other one plain. */
  async function resolveMentions(room: AuthorizedRoom, body: string): Promise<{ body: string; mentioned: string[] }> {
    const ids = mentionedUserIds(body);
    if (!ids.length) return { body, mentioned: [] };
    const members = await db.membership.findMany({
      where: { workspaceId: room.workspaceId, userId: { in: ids } },
      select: { user: { select: { id: true, name: true } } },
    });
    const { text, userIds } = rewriteMentions(body, new Map(members.map((m) => [m.user.id, m.user.name])));
    if (!chatBodySchema.safeParse(text).success)
      throw invalid("With the mentioned members' names written out, this message is over 16 KB; shorten it.");
    return { body: text, mentioned: userIds };
  }

  /** Tells the mentioned (and, for a new thread message, the thread's earlier writers). */
  async function tell(
    room: AuthorizedRoom,
    m: RoomMessage,
    sent: { message: ChatMessage; seq: number },
    mentioned: string[],
    isNew: boolean,
  ) {
    await notify.chatMessage({
      room,
      message: { id: m.uid, thread: m.thread, authorId: m.authorId, body: m.body },
      author: { name: sent.message.author.name },
      seq: sent.seq,
      mentioned,
      isNew,
    });
  }

  /** A thread is a finding of this review: refused anywhere else. */
  async function checkThread(room: RoomName, thread: string): Promise<void> {
    const parsed = parseRoom(room);
    if (parsed?.kind !== "review") throw invalid("Only a review's findings have threads; post to the room's chat.");
    const finding = await db.reviewFinding.findFirst({
      where: { fingerprint: thread, review: { uid: parsed.uid } },
      select: { id: true },
    });
    if (!finding) throw notFound("That finding is not part of this review, so it has no thread here.");
  }

  /** The message of this room, written by the actor and not deleted; else why not. */
  async function ownMessage(actor: NonNullable<Actor>, room: RoomName, id: string): Promise<RoomMessage> {
    const m = await db.roomMessage.findUnique({ where: { uid: id } });
    if (!m || m.room !== room) throw notFound("That message is not in this room (it may have been deleted).");
    if (m.authorId !== actor.userId) throw forbidden("Only its author can change or delete a message.");
    if (m.deletedAt) throw notFound("That message was deleted.");
    return m;
  }

  return {
    /**
     * What someone said on a pull request about a finding (server/forges/feedback.ts: a reply or a
     * reaction on Argus's comment), in the finding's thread. Its author is the forge's user
     * (`github:<login>`); no mentions are resolved and no rate applies (deliveries are deduplicated).
     */
    async fromForge(room: RoomName, thread: string, authorId: string, body: string): Promise<ChatMessage> {
      await checkThread(room, thread);
      const text = body.length > 8000 ? `${body.slice(0, 8000)}…` : body;
      const m = await db.roomMessage.create({
        data: { uid: crypto.randomUUID(), room, thread, authorId, body: text },
      });
      return (await announce(room, m)).message;
    },

    async send(actor: Actor, room: AuthorizedRoom, input: SendInput): Promise<ChatMessage> {
      const user = requireUser(actor);
      if (input.thread !== null) await checkThread(room.name, input.thread);
      await limiter.hit(user.userId);
      const { body, mentioned } = await resolveMentions(room, input.body);
      const m = await db.roomMessage.create({
        data: { uid: crypto.randomUUID(), room: room.name, thread: input.thread, authorId: user.userId, body },
      });
      // Argus first (an answer waits on the model), then the people told of the message. Argus does not
      // wait for the message's event to be stored: the bus keeps the room's events in publish order, so
      // its thread still comes after the message.
      const announced = announce(room.name, m, user.name);
      announced.catch(() => undefined); // awaited below; not unhandled while Argus is asked
      const message = view(m, user.name);
      await deps.onSend?.(user, room, message);
      const sent = await announced;
      await tell(room, m, sent, mentioned, true);
      return sent.message;
    },

    async edit(actor: Actor, room: AuthorizedRoom, input: { id: string; body: string }): Promise<ChatMessage> {
      const user = requireUser(actor);
      const m = await ownMessage(user, room.name, input.id);
      const { body, mentioned } = await resolveMentions(room, input.body);
      if (m.body === body) return view(m, user.name);
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
      const sent = await announce(room.name, updated);
      // Only people newly mentioned hear of it: one notification per person and message.
      await tell(room, updated, sent, mentioned, false);
      return sent.message;
    },

    async remove(actor: Actor, room: AuthorizedRoom, input: { id: string }): Promise<ChatMessage> {
      const user = requireUser(actor);
      const m = await ownMessage(user, room.name, input.id);
      const deleted = await db.$transaction(async (tx) => {
        await tx.roomMessageEdit.deleteMany({ where: { messageId: m.id } });
        return tx.roomMessage.update({
          where: { id: m.id },
          data: { body: "", deletedAt: new Date(), version: m.version + 1 },
        });
      });
      return (await announce(room.name, deleted)).message;
    },

    /** Up to `limit` messages before `before` (the newest without it), oldest first. */
    async page(
      room: AuthorizedRoom,
      input: { thread: string | null; before?: string; limit?: number },
    ): Promise<{ messages: ChatMessage[]; more: boolean }> {
      const limit = input.limit ?? CHAT_PAGE;
      let cursor: { createdAt: Date; id: string } | undefined;
      if (input.before) {
        const at = await db.roomMessage.findUnique({ where: { uid: input.before } });
        if (!at || at.room !== room.name) throw notFound("That message is not in this room.");
        cursor = { createdAt: at.createdAt, id: at.id };
      }
      const rows = await db.roomMessage.findMany({
        where: {
          room: room.name,
          thread: input.thread,
          ...(cursor
            ? {
                OR: [{ createdAt: { lt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { lt: cursor.id } }],
              }
            : {}),
        },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: limit + 1,
      });
      const page = rows.slice(0, limit).reverse();
      const who = await names(page.map((m) => m.authorId));
      return { messages: page.map((m) => view(m, who.get(m.authorId))), more: rows.length > limit };
    },

    /** The earlier texts of a message, oldest first (none once it is deleted). */
    async edits(room: AuthorizedRoom, input: { id: string }): Promise<ChatEdit[]> {
      const m = await db.roomMessage.findUnique({
        where: { uid: input.id },
        include: { edits: { orderBy: { version: "asc" } } },
      });
      if (!m || m.room !== room.name) throw notFound("That message is not in this room.");
      return m.edits.map((e) => ({ version: e.version, body: e.body, replacedAt: e.replacedAt.toISOString() }));
    },
  };
}

export type RoomChat = ReturnType<typeof createRoomChat>;
