import { chatCreateInput, chatExportInput, chatRenameInput, chatSendInput } from "../../pipelines/chat/inputs.ts";
import { protectedProcedure, router } from "../init.ts";
import { uidInput, workspaceInput } from "../inputs.ts";

/** Chat with a pipeline: sessions, their turns, renaming, deleting and exporting them. */
export const pipelineChatRouter = router({
  pipelines: protectedProcedure
    .input(workspaceInput)
    .query(({ ctx, input }) => ctx.services.pipelineChat.pipelines(ctx.actor, input.workspaceId)),
  sessions: protectedProcedure
    .input(workspaceInput)
    .query(({ ctx, input }) => ctx.services.pipelineChat.sessions(ctx.actor, input.workspaceId)),
  get: protectedProcedure
    .input(uidInput)
    .query(({ ctx, input }) => ctx.services.pipelineChat.get(ctx.actor, input.uid)),
  create: protectedProcedure
    .input(chatCreateInput)
    .mutation(({ ctx, input }) => ctx.services.pipelineChat.create(ctx.actor, input)),
  send: protectedProcedure
    .input(chatSendInput)
    .mutation(({ ctx, input }) => ctx.services.pipelineChat.send(ctx.actor, input)),
  rename: protectedProcedure
    .input(chatRenameInput)
    .mutation(({ ctx, input }) => ctx.services.pipelineChat.rename(ctx.actor, input)),
  delete: protectedProcedure
    .input(uidInput)
    .mutation(({ ctx, input }) => ctx.services.pipelineChat.remove(ctx.actor, input.uid)),
  export: protectedProcedure
    .input(chatExportInput)
    .query(({ ctx, input }) => ctx.services.pipelineChat.export(ctx.actor, input)),
});
