import { listInput, markReadInput } from "../../notifications/inbox.ts";
import { protectedProcedure, router } from "../init.ts";

/** The caller's own inbox (server/notifications/inbox.ts): nobody reads or marks another's. */
export const notificationsRouter = router({
  list: protectedProcedure
    .input(listInput)
    .query(({ ctx, input }) => ctx.services.notifications.inbox.list(ctx.actor, input)),
  unreadCount: protectedProcedure.query(({ ctx }) => ctx.services.notifications.inbox.unreadCount(ctx.actor)),
  markRead: protectedProcedure
    .input(markReadInput)
    .mutation(({ ctx, input }) => ctx.services.notifications.inbox.markRead(ctx.actor, input)),
  markAllRead: protectedProcedure.mutation(({ ctx }) => ctx.services.notifications.inbox.markAllRead(ctx.actor)),
});
