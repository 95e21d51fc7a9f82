/**
 * Telling of a chat message: its current state as the room's `chat_message` event (and, for a
 * finding's thread, the thread's new size in the review's room), and the people it concerns.
 */
import type { Db, RoomMessage } from "../db/client.ts";
import type { EventBus } from "../events/bus.ts";
import type { Notifier } from "../notifications/service.ts";
import type { ChatMessage } from "../shared/room-chat.ts";
import { parseRoom, type RoomName } from "../shared/rooms.ts";
import type { AuthorizedRoom } from "./access.ts";
import { authorNames, chatMessageView } from "./chat-view.ts";

/**
 * Publishes the message's current state; resolves with it and the seq of its event. `authorName`:
 * the author's name when the caller knows it (the actor's own message), else it is read.
 */
export async function announce(
  { db, events }: { db: Db; events: EventBus },
  room: RoomName,
  m: RoomMessage,
  authorName?: string,
): Promise<{ message: ChatMessage; seq: number }> {
  const message = chatMessageView(m, authorName ?? (await authorNames(db, [m.authorId])).get(m.authorId));
  const { seq } = await events.publish(room, { type: "chat_message", payload: message });
  const review = parseRoom(room);
  if (m.thread !== null && review?.kind === "review") {
    // The findings list shows each thread's size; the latest count event is the count.
    const count = await db.roomMessage.count({ where: { room, thread: m.thread, deletedAt: null } });
    await events.publish(review.name, { type: "thread_count", payload: { fingerprint: m.thread, count } });
  }
  return { message, seq };
}

/** Tells the mentioned (and, for a new thread message, the thread's earlier writers). */
export async function tell(
  notify: Notifier,
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
