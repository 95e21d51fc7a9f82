/**
 * A user's inbox: their notifications, newest first, paged; how many are unread; marking read. Every
 * call is about the caller only — another user's notification is "not found", never read or marked —
 * and only of workspaces the caller is still a member of (leaving a workspace hides its items).
 */
import { z } from "zod";
import { requireUser, type Actor } from "../auth/access.ts";
import type { Db, Notification } from "../db/client.ts";
import { notFound } from "../errors.ts";
import {
  MARK_READ_MAX,
  NOTIFICATION_PAGE,
  notificationKindSchema,
  type NotificationView,
} from "../shared/notifications.ts";

const notificationId = z.uuid({ message: "a notification id is a UUID from the inbox" });

export const listInput = z
  .object({
    /** The id of the last item of the previous page. */
    cursor: notificationId.optional(),
    limit: z.number().int().min(1).max(100).default(NOTIFICATION_PAGE),
    unreadOnly: z.boolean().default(false),
  })
  .default({ limit: NOTIFICATION_PAGE, unreadOnly: false });

export const markReadInput = z.object({
  ids: z
    .array(notificationId)
    .min(1, "name at least one notification")
    .max(MARK_READ_MAX, `at most ${MARK_READ_MAX} notifications at once; use markAllRead for more`),
});

/** The caller's notifications in workspaces they are still in. */
const mine = (userId: string) => ({ userId, workspace: { memberships: { some: { userId } } } });

type Row = Notification & { workspace: { id: string; name: string } };

export function createInbox(db: Db) {
  async function views(rows: Row[]): Promise<NotificationView[]> {
    const actorIds = [...new Set(rows.flatMap((r) => (r.actorId ? [r.actorId] : [])))];
    const users = actorIds.length
      ? await db.user.findMany({ where: { id: { in: actorIds } }, select: { id: true, name: true } })
      : [];
    const names = new Map(users.map((u) => [u.id, u.name]));
    return rows.map((r) => ({
      id: r.uid,
      kind: notificationKindSchema.parse(r.kind),
      workspace: { id: r.workspace.id, name: r.workspace.name },
      actor: r.actorId ? { id: r.actorId, name: names.get(r.actorId) ?? "A former member" } : null,
      text: r.text,
      link: r.link,
      read: r.readAt !== null,
      createdAt: r.createdAt.toISOString(),
    }));
  }

  const unread = (userId: string) => db.notification.count({ where: { ...mine(userId), readAt: null } });

  return {
    unread,

    /** Notifications as their reader sees them (for the live push of new ones). */
    async view(uids: string[]): Promise<NotificationView[]> {
      const rows = await db.notification.findMany({
        where: { uid: { in: uids } },
        include: { workspace: { select: { id: true, name: true } } },
      });
      return views(rows);
    },

    async list(actor: Actor, input: z.output<typeof listInput>) {
      const { userId } = requireUser(actor);
      let after: { createdAt: Date; id: string } | undefined;
      if (input.cursor) {
        const at = await db.notification.findFirst({ where: { ...mine(userId), uid: input.cursor } });
        if (!at) throw notFound("That notification is not in your inbox; load the inbox again.");
        after = { createdAt: at.createdAt, id: at.id };
      }
      const rows = await db.notification.findMany({
        where: {
          ...mine(userId),
          ...(input.unreadOnly ? { readAt: null } : {}),
          ...(after
            ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] }
            : {}),
        },
        include: { workspace: { select: { id: true, name: true } } },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: input.limit + 1,
      });
      const page = rows.slice(0, input.limit);
      return {
        items: await views(page),
        nextCursor: rows.length > input.limit ? page[page.length - 1]!.uid : null,
      };
    },

    async unreadCount(actor: Actor): Promise<{ count: number }> {
      return { count: await unread(requireUser(actor).userId) };
    },

    /** All named notifications must be the caller's, or nothing is marked. */
    async markRead(actor: Actor, input: z.output<typeof markReadInput>): Promise<{ updated: number; unread: number }> {
      const { userId } = requireUser(actor);
      const ids = [...new Set(input.ids)];
      const found = await db.notification.count({ where: { ...mine(userId), uid: { in: ids } } });
      if (found !== ids.length)
        throw notFound(
          ids.length === 1
            ? "That notification is not in your inbox; load the inbox again."
            : "Some of these notifications are not in your inbox; nothing was marked. Load the inbox again.",
        );
      const { count } = await db.notification.updateMany({
        where: { ...mine(userId), uid: { in: ids }, readAt: null },
        data: { readAt: new Date() },
      });
      return { updated: count, unread: await unread(userId) };
    },

    async markAllRead(actor: Actor): Promise<{ updated: number; unread: number }> {
      const { userId } = requireUser(actor);
      const { count } = await db.notification.updateMany({
        where: { ...mine(userId), readAt: null },
        data: { readAt: new Date() },
      });
      return { updated: count, unread: await unread(userId) };
    },
  };
}

export type Inbox = ReturnType<typeof createInbox>;
