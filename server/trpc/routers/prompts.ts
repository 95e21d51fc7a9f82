import { createPromptInput, duplicatePromptInput, setDefaultInput, updatePromptInput } from "../../prompts/service.ts";
import { protectedProcedure, router } from "../init.ts";
import { uidInput, workspaceInput } from "../inputs.ts";

export const promptsRouter = router({
  list: protectedProcedure
    .input(workspaceInput)
    .query(({ ctx, input }) => ctx.services.prompts.list(ctx.actor, input.workspaceId)),
  get: protectedProcedure.input(uidInput).query(({ ctx, input }) => ctx.services.prompts.get(ctx.actor, input.uid)),
  create: protectedProcedure
    .input(createPromptInput)
    .mutation(({ ctx, input }) => ctx.services.prompts.create(ctx.actor, input)),
  update: protectedProcedure
    .input(updatePromptInput)
    .mutation(({ ctx, input }) => ctx.services.prompts.update(ctx.actor, input)),
  setDefault: protectedProcedure
    .input(setDefaultInput)
    .mutation(({ ctx, input }) => ctx.services.prompts.setDefault(ctx.actor, input)),
  duplicate: protectedProcedure
    .input(duplicatePromptInput)
    .mutation(({ ctx, input }) => ctx.services.prompts.duplicate(ctx.actor, input)),
  delete: protectedProcedure
    .input(uidInput)
    .mutation(({ ctx, input }) => ctx.services.prompts.remove(ctx.actor, input.uid)),
});
