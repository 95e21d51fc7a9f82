/**
 * Reactions to chat messages (table room_message_reaction: one row per user, message and emoji). A
 * toggle adds the actor's reaction or takes it back, then publishes the message's reactions as they
 * now are (`chat_reactions`), so watchers update live and a late joiner reads them from the log; chat
 * pages carry them too (`forMessages`), for messages whose event has scrolled out of a client's window.
 *
 * The caller (the socket protocol) has authorized the room for the actor; this checks what only it
 * knows: that the message is of this room and not deleted, and the rate.
 */
import { requireUser, type Actor } from "../auth/access.ts";
import { isUniqueViolation, type Db } from "../db/client.ts";
import { notFound } from "../errors.ts";
import type { EventBus } from "../events/bus.ts";
import {
  type MessageReactions,
  type Reaction,
  type ReactionEmoji,
  REACTION_RATE_TOGGLES,
  REACTION_RATE_WINDOW_MS,
  reactionOrder,
} from "../shared/room-reactions.ts";
import type { AuthorizedRoom } from "./access.ts";
import { createRateLimiter, type RateLimitStore } from "../lib/rate-limit.ts";

interface Row {
  messageId: string;
  userId: string;
  emoji: string;
}

export function createRoomReactions(deps: {
  db: Db;
  events: EventBus;
  now?: () => number;
  rateLimits?: RateLimitStore;
}) {
  const { db, events } = deps;
  const limiter = createRateLimiter({
    max: REACTION_RATE_TOGGLES,
    windowMs: REACTION_RATE_WINDOW_MS,
    now: deps.now,
    store: deps.rateLimits,
    name: "reactions",
    message: (s) => `Too many reactions at once; try again in ${s} s.`,
  });

  /** Rows grouped per message (by the message's row id), each message's reactions in REACTIONS order. */
  async function group(rows: Row[]): Promise<Map<string, Reaction[]>> {
    const users = await db.user.findMany({
      where: { id: { in: [...new Set(rows.map((r) => r.userId))] } },
      select: { id: true, name: true },
    });
    const names = new Map(users.map((u) => [u.id, u.name]));
    const byMessage = new Map<string, Map<string, Reaction>>();
    for (const r of rows) {
      let emojis = byMessage.get(r.messageId);
      if (!emojis) byMessage.set(r.messageId, (emojis = new Map()));
      let reaction = emojis.get(r.emoji);
      if (!reaction) emojis.set(r.emoji, (reaction = { emoji: r.emoji as ReactionEmoji, users: [] }));
      reaction.users.push({ id: r.userId, name: names.get(r.userId) ?? "A former member" });
    }
    return new Map(
      [...byMessage].map(([id, emojis]) => [
        id,
        [...emojis.values()].sort((a, b) => reactionOrder(a.emoji) - reactionOrder(b.emoji)),
      ]),
    );
  }

  const rowsOf = (messageIds: string[]) =>
    db.roomMessageReaction.findMany({
      where: { messageId: { in: messageIds } },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      select: { messageId: true, userId: true, emoji: true },
    });

  // One toggle of a message at a time (in this process): each publishes the state it read after its
  // write, so without this two toggles could publish in the opposite order of their reads and leave
  // the older state as the message's latest event.
  const queues = new Map<string, Promise<unknown>>();
  function oneAtATime<T>(key: string, work: () => Promise<T>): Promise<T> {
    const run = (queues.get(key) ?? Promise.resolve()).then(work, work);
    const settled = run.catch(() => undefined);
    queues.set(key, settled);
    void settled.then(() => {
      if (queues.get(key) === settled) queues.delete(key);
    });
    return run;
  }

  return {
    async toggle(
      actor: Actor,
      room: AuthorizedRoom,
      input: { id: string; emoji: ReactionEmoji },
    ): Promise<{ reactions: Reaction[] }> {
      const user = requireUser(actor);
      const m = await db.roomMessage.findUnique({
        where: { uid: input.id },
        select: { id: true, room: true, deletedAt: true },
      });
      if (!m || m.room !== room.name) throw notFound("That message is not in this room (it may have been deleted).");
      if (m.deletedAt) throw notFound("That message was deleted; there is nothing to react to.");
      await limiter.hit(user.userId);
      const row = { messageId: m.id, userId: user.userId, emoji: input.emoji };
      return oneAtATime(m.id, async () => {
        const { count } = await db.roomMessageReaction.deleteMany({ where: row });
        if (count === 0) {
          try {
            await db.roomMessageReaction.create({ data: row });
          } catch (err) {
            // The same toggle at once from another process: it added the reaction, as this one meant to.
            if (!isUniqueViolation(err)) throw err;
          }
        }
        const reactions = (await group(await rowsOf([m.id]))).get(m.id) ?? [];
        await events.publish(room.name, { type: "chat_reactions", payload: { messageId: input.id, reactions } });
        return { reactions };
      });
    },

    /** The reactions of these messages of the room (by uid), for those that have any. */
    async forMessages(room: AuthorizedRoom, uids: string[]): Promise<MessageReactions[]> {
      if (!uids.length) return [];
      const messages = await db.roomMessage.findMany({
        where: { uid: { in: uids }, room: room.name, deletedAt: null },
        select: { id: true, uid: true },
      });
      const grouped = await group(await rowsOf(messages.map((m) => m.id)));
      return messages.flatMap((m) => {
        const reactions = grouped.get(m.id);
        return reactions ? [{ messageId: m.uid, reactions }] : [];
      });
    },
  };
}

export type RoomReactions = ReturnType<typeof createRoomReactions>;
