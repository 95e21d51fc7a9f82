import { z } from "zod";
import { saveConnectionInput, testConnectionInput } from "../../providers/service.ts";
import { protectedProcedure, router } from "../init.ts";
import { workspaceInput } from "../inputs.ts";

export const providersRouter = router({
  catalog: protectedProcedure.query(({ ctx }) => ctx.services.providers.catalog()),
  list: protectedProcedure
    .input(workspaceInput)
    .query(({ ctx, input }) => ctx.services.providers.list(ctx.actor, input.workspaceId)),
  workspaceDefault: protectedProcedure
    .input(workspaceInput)
    .query(({ ctx, input }) => ctx.services.providers.workspaceDefault(ctx.actor, input.workspaceId)),
  setDefault: protectedProcedure
    .input(z.object({ workspaceId: z.string().min(1), uid: z.uuid().nullable() }))
    .mutation(({ ctx, input }) => ctx.services.providers.setDefault(ctx.actor, input)),
  save: protectedProcedure
    .input(saveConnectionInput)
    .mutation(({ ctx, input }) => ctx.services.providers.save(ctx.actor, input)),
  delete: protectedProcedure
    .input(z.object({ uid: z.uuid() }))
    .mutation(({ ctx, input }) => ctx.services.providers.remove(ctx.actor, input.uid)),
  test: protectedProcedure
    .input(testConnectionInput)
    .mutation(({ ctx, input }) => ctx.services.providers.test(ctx.actor, input)),
  detectOllama: protectedProcedure
    .input(workspaceInput)
    .query(({ ctx, input }) => ctx.services.providers.detectOllama(ctx.actor, input.workspaceId)),
});
