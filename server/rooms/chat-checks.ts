/**
 * What only the chat service can check before a message is written or changed: the thread's finding,
 * the message's author, and the text's size once its mentions are written out.
 */
import type { Actor } from "../auth/access.ts";
import type { Db, RoomMessage } from "../db/client.ts";
import { forbidden, invalid, notFound } from "../errors.ts";
import { mentionedUserIds, rewriteMentions } from "../shared/mentions.ts";
import { chatBodySchema } from "../shared/room-chat.ts";
import { parseRoom, type RoomName } from "../shared/rooms.ts";
import type { AuthorizedRoom } from "./access.ts";

/** The text with mentions of the workspace's members kept (real names) and every other one plain. */
export async function resolveMentions(
  db: Db,
  room: AuthorizedRoom,
  body: string,
): Promise<{ body: string; mentioned: string[] }> {
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

/** A thread is a finding of this review: refused anywhere else. */
export async function checkThread(db: Db, room: RoomName, thread: string): Promise<void> {
  const parsed = parseRoom(room);
  if (parsed?.kind !== "review") throw invalid("Only a review's findings have threads; post to the room's chat.");
  const finding = await db.reviewFinding.findFirst({
    where: { fingerprint: thread, review: { uid: parsed.uid } },
    select: { id: true },
  });
  if (!finding) throw notFound("That finding is not part of this review, so it has no thread here.");
}

/** The message of this room, written by the actor and not deleted; else why not. */
export async function ownMessage(db: Db, actor: NonNullable<Actor>, room: RoomName, id: string): Promise<RoomMessage> {
  const m = await db.roomMessage.findUnique({ where: { uid: id } });
  if (!m || m.room !== room) throw notFound("That message is not in this room (it may have been deleted).");
  if (m.authorId !== actor.userId) throw forbidden("Only its author can change or delete a message.");
  if (m.deletedAt) throw notFound("That message was deleted.");
  return m;
}
