import { z } from "zod";
import { dismissInput, findingsInput, listReviewsInput, startReviewInput } from "../../review/index.ts";
import { protectedProcedure, router } from "../init.ts";

const reviewInput = z.object({ uid: z.uuid() });

export const reviewsRouter = router({
  start: protectedProcedure
    .input(startReviewInput)
    .mutation(({ ctx, input }) => ctx.services.reviews.start(ctx.actor, input)),
  list: protectedProcedure
    .input(listReviewsInput)
    .query(({ ctx, input }) => ctx.services.reviews.list(ctx.actor, input)),
  get: protectedProcedure.input(reviewInput).query(({ ctx, input }) => ctx.services.reviews.get(ctx.actor, input.uid)),
  findings: protectedProcedure
    .input(findingsInput)
    .query(({ ctx, input }) => ctx.services.reviews.findings(ctx.actor, input)),
  events: protectedProcedure
    .input(reviewInput.extend({ afterSeq: z.number().int().nonnegative().default(0) }))
    .query(({ ctx, input }) => ctx.services.reviews.events(ctx.actor, input.uid, input.afterSeq)),
  cancel: protectedProcedure
    .input(reviewInput)
    .mutation(({ ctx, input }) => ctx.services.reviews.cancel(ctx.actor, input.uid)),
  rerun: protectedProcedure
    .input(reviewInput)
    .mutation(({ ctx, input }) => ctx.services.reviews.rerun(ctx.actor, input.uid)),
  remove: protectedProcedure
    .input(reviewInput)
    .mutation(({ ctx, input }) => ctx.services.reviews.remove(ctx.actor, input.uid)),
  dismiss: protectedProcedure
    .input(dismissInput)
    .mutation(({ ctx, input }) => ctx.services.reviews.dismiss(ctx.actor, input)),
  undismiss: protectedProcedure
    .input(dismissInput)
    .mutation(({ ctx, input }) => ctx.services.reviews.undismiss(ctx.actor, input)),
  trend: protectedProcedure
    .input(z.object({ projectUid: z.uuid() }))
    .query(({ ctx, input }) => ctx.services.reviews.trend(ctx.actor, input.projectUid)),
});
