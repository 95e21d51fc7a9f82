import { z } from "zod";
import {
  compareRunsInput,
  createInput,
  diffInput,
  forkInput,
  galleryInput,
  rerunInput,
  runCaseInput,
  runsInput,
  saveInput,
  startRunInput,
  validateInput,
} from "../../pipelines/workspace/inputs.ts";
import { protectedProcedure, router } from "../init.ts";
import { uidInput, workspaceInput } from "../inputs.ts";

export const pipelinesRouter = router({
  list: protectedProcedure
    .input(workspaceInput)
    .query(({ ctx, input }) => ctx.services.pipelines.list(ctx.actor, input.workspaceId)),
  gallery: protectedProcedure
    .input(galleryInput)
    .query(({ ctx, input }) => ctx.services.pipelines.gallery(ctx.actor, input)),
  get: protectedProcedure.input(uidInput).query(({ ctx, input }) => ctx.services.pipelines.get(ctx.actor, input.uid)),
  validate: protectedProcedure
    .input(validateInput)
    .mutation(({ ctx, input }) => ctx.services.pipelines.validate(ctx.actor, input)),
  servers: protectedProcedure
    .input(workspaceInput)
    .query(({ ctx, input }) => ctx.services.pipelines.servers(ctx.actor, input.workspaceId)),
  create: protectedProcedure
    .input(createInput)
    .mutation(({ ctx, input }) => ctx.services.pipelines.create(ctx.actor, input)),
  fork: protectedProcedure.input(forkInput).mutation(({ ctx, input }) => ctx.services.pipelines.fork(ctx.actor, input)),
  save: protectedProcedure.input(saveInput).mutation(({ ctx, input }) => ctx.services.pipelines.save(ctx.actor, input)),
  delete: protectedProcedure
    .input(uidInput)
    .mutation(({ ctx, input }) => ctx.services.pipelines.remove(ctx.actor, input.uid)),
  versions: protectedProcedure
    .input(uidInput)
    .query(({ ctx, input }) => ctx.services.pipelines.versions(ctx.actor, input.uid)),
  diff: protectedProcedure.input(diffInput).query(({ ctx, input }) => ctx.services.pipelines.diff(ctx.actor, input)),
  startRun: protectedProcedure
    .input(startRunInput)
    .mutation(({ ctx, input }) => ctx.services.pipelines.startRun(ctx.actor, input)),
  cancelRun: protectedProcedure
    .input(z.object({ uid: z.uuid("uid must be a UUID") }))
    .mutation(({ ctx, input }) => ctx.services.pipelines.cancelRun(ctx.actor, input.uid)),
  rerun: protectedProcedure
    .input(rerunInput)
    .mutation(({ ctx, input }) => ctx.services.pipelines.rerun(ctx.actor, input.uid)),
  compareRuns: protectedProcedure
    .input(compareRunsInput)
    .query(({ ctx, input }) => ctx.services.pipelines.compareRuns(ctx.actor, input)),
  runs: protectedProcedure
    .input(runsInput)
    .query(({ ctx, input }) => ctx.services.pipelines.listRuns(ctx.actor, input)),
  run: protectedProcedure
    .input(uidInput)
    .query(({ ctx, input }) => ctx.services.pipelines.getRun(ctx.actor, input.uid)),
  runCase: protectedProcedure
    .input(runCaseInput)
    .query(({ ctx, input }) => ctx.services.pipelines.runCase(ctx.actor, input)),
});
