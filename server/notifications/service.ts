/**
 * Notifications: the inbox a user reads (inbox.ts) and the notifier the chat and the review job call
 * (notify.ts), built together so a notification written is one the inbox can show.
 */
import type { Db } from "../db/client.ts";
import type { Logger } from "../logger.ts";
import { createInbox } from "./inbox.ts";
import { createNotifier } from "./notify.ts";

export function createNotifications(deps: { db: Db; log: Logger }) {
  const inbox = createInbox(deps.db);
  return { inbox, notify: createNotifier({ ...deps, inbox }) };
}

export type Notifications = ReturnType<typeof createNotifications>;
export type { Notifier } from "./notify.ts";
