/** A chat message as every watcher sees it, and the names of its authors. */
import type { Db, RoomMessage } from "../db/client.ts";
import { forgePersonName } from "../shared/forge-people.ts";
import type { ChatMessage } from "../shared/room-chat.ts";

/** A message as every watcher sees it (an author no longer a user, or a forge's person, by name). */
export function chatMessageView(m: RoomMessage, authorName: string | undefined): ChatMessage {
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

/** The names of these users, by id (a former user has none). */
export async function authorNames(db: Db, ids: string[]): Promise<Map<string, string>> {
  const users = await db.user.findMany({
    where: { id: { in: [...new Set(ids)] } },
    select: { id: true, name: true },
  });
  return new Map(users.map((u) => [u.id, u.name]));
}
