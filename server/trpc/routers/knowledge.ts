import { z } from "zod";
import { chunkingInput, createBaseInput, searchInput, updateBaseInput } from "../../knowledge/service.ts";
import { protectedProcedure, router } from "../init.ts";
import { uidInput, workspaceInput } from "../inputs.ts";

export const knowledgeRouter = router({
  list: protectedProcedure
    .input(workspaceInput)
    .query(({ ctx, input }) => ctx.services.knowledge.list(ctx.actor, input.workspaceId)),
  get: protectedProcedure.input(uidInput).query(({ ctx, input }) => ctx.services.knowledge.get(ctx.actor, input.uid)),
  create: protectedProcedure
    .input(createBaseInput)
    .mutation(({ ctx, input }) => ctx.services.knowledge.create(ctx.actor, input)),
  update: protectedProcedure
    .input(updateBaseInput)
    .mutation(({ ctx, input }) => ctx.services.knowledge.update(ctx.actor, input)),
  delete: protectedProcedure
    .input(uidInput)
    .mutation(({ ctx, input }) => ctx.services.knowledge.remove(ctx.actor, input.uid)),
  documents: protectedProcedure
    .input(uidInput)
    .query(({ ctx, input }) => ctx.services.knowledge.documents(ctx.actor, input.uid)),
  deleteDocument: protectedProcedure
    .input(z.object({ documentUid: z.uuid("documentUid must be a UUID") }))
    .mutation(({ ctx, input }) => ctx.services.knowledge.removeDocument(ctx.actor, input.documentUid)),
  setChunking: protectedProcedure
    .input(chunkingInput)
    .mutation(({ ctx, input }) => ctx.services.knowledge.setChunking(ctx.actor, input)),
  rebuild: protectedProcedure
    .input(uidInput)
    .mutation(({ ctx, input }) => ctx.services.knowledge.rebuild(ctx.actor, input.uid)),
  search: protectedProcedure
    .input(searchInput)
    .query(({ ctx, input }) => ctx.services.knowledge.search(ctx.actor, input)),
});
