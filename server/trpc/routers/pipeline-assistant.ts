import { proposeInput } from "../../pipelines/assistant/service.ts";
import { protectedProcedure, router } from "../init.ts";
import { workspaceInput } from "../inputs.ts";

/** The pipeline builder's assistant (server/pipelines/assistant). */
export const pipelineAssistantRouter = router({
  status: protectedProcedure
    .input(workspaceInput)
    .query(({ ctx, input }) => ctx.services.pipelineAssistant.status(ctx.actor, input.workspaceId)),
  propose: protectedProcedure
    .input(proposeInput)
    .mutation(({ ctx, input }) => ctx.services.pipelineAssistant.propose(ctx.actor, input)),
});
