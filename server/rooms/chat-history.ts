/** Reading a room's chat: a page of messages (or of a thread), and a message's earlier texts. */
import type { Db } from "../db/client.ts";
import { notFound } from "../errors.ts";
import { CHAT_PAGE, type ChatEdit, type ChatMessage } from "../shared/room-chat.ts";
import type { AuthorizedRoom } from "./access.ts";
import { authorNames, chatMessageView } from "./chat-view.ts";

/** Up to `limit` messages before `before` (the newest without it), oldest first. */
export async function chatPage(
  db: Db,
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
  const who = await authorNames(
    db,
    page.map((m) => m.authorId),
  );
  return { messages: page.map((m) => chatMessageView(m, who.get(m.authorId))), more: rows.length > limit };
}

/** The earlier texts of a message, oldest first (none once it is deleted). */
export async function chatEdits(db: Db, room: AuthorizedRoom, input: { id: string }): Promise<ChatEdit[]> {
  const m = await db.roomMessage.findUnique({
    where: { uid: input.id },
    include: { edits: { orderBy: { version: "asc" } } },
  });
  if (!m || m.room !== room.name) throw notFound("That message is not in this room.");
  return m.edits.map((e) => ({ version: e.version, body: e.body, replacedAt: e.replacedAt.toISOString() }));
}
