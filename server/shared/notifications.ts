/**
 * The in-app inbox: what a notification is about, one as its reader sees it (the `notifications`
 * router's pages and the `notification` message a user's sockets get live), and the page size.
 */
import { z } from "zod";

export const NOTIFICATION_KINDS = [
  /** Someone mentioned you in a chat message (or a finding's thread). */
  "mention",
  /** Someone replied in a finding's thread you wrote in before. */
  "thread_reply",
  /** A review you started completed. */
  "review_finished",
  /** A review you started failed. */
  "review_failed",
] as const;
export const notificationKindSchema = z.enum(NOTIFICATION_KINDS);
export type NotificationKind = z.infer<typeof notificationKindSchema>;

/** Items in one inbox page. */
export const NOTIFICATION_PAGE = 30;
/** Ids one markRead call takes at most. */
export const MARK_READ_MAX = 200;

export const notificationSchema = z.object({
  id: z.string(),
  kind: notificationKindSchema,
  workspace: z.object({ id: z.string(), name: z.string() }),
  /** Who did it; null when Argus did (a review ended). */
  actor: z.object({ id: z.string(), name: z.string() }).nullable(),
  /** One short line of plain text (never Markdown). */
  text: z.string(),
  /** Where it happened, inside the app (`/reviews/<uid>?at=<seq>#chat-<message>`). */
  link: z.string(),
  read: z.boolean(),
  createdAt: z.string(),
});
export type NotificationView = z.infer<typeof notificationSchema>;

/** What a user's sockets get when a notification for them is created. */
export interface NotificationPush {
  notification: NotificationView;
  /** The user's unread notifications now, this one included. */
  unread: number;
}

/** The element id a chat message has on its page, for `#chat-<id>` links. */
export const chatAnchor = (messageId: string) => `chat-${messageId}`;
