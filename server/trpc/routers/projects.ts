import { createProjectInput, renameProjectInput } from "../../projects/service.ts";
import { startDemoInput } from "../../review/index.ts";
import { protectedProcedure, router } from "../init.ts";
import { uidInput, workspaceInput } from "../inputs.ts";

export const projectsRouter = router({
  list: protectedProcedure
    .input(workspaceInput)
    .query(({ ctx, input }) => ctx.services.projects.list(ctx.actor, input.workspaceId)),
  get: protectedProcedure.input(uidInput).query(({ ctx, input }) => ctx.services.projects.get(ctx.actor, input.uid)),
  create: protectedProcedure
    .input(createProjectInput)
    .mutation(({ ctx, input }) => ctx.services.projects.create(ctx.actor, input)),
  rename: protectedProcedure
    .input(renameProjectInput)
    .mutation(({ ctx, input }) => ctx.services.projects.rename(ctx.actor, input)),
  /** One click on first run: import the demo project and start a review of it. */
  startDemo: protectedProcedure
    .input(startDemoInput)
    .mutation(({ ctx, input }) => ctx.services.demo.start(ctx.actor, input)),
  delete: protectedProcedure
    .input(uidInput)
    .mutation(({ ctx, input }) => ctx.services.projects.remove(ctx.actor, input.uid)),
});
