import { z } from "zod";
import { createShareInput, reviewSharesInput, shareInput, shareTokenInput } from "../../shares/service.ts";
import { protectedProcedure, publicProcedure, router } from "../init.ts";

/**
 * Share links of a review: members make, list and revoke them; the public procedures are what the
 * link's page reads, with the token as the only right (server/shares).
 */
export const sharesRouter = router({
  create: protectedProcedure
    .input(createShareInput)
    .mutation(({ ctx, input }) => ctx.services.shares.create(ctx.actor, input)),
  list: protectedProcedure
    .input(reviewSharesInput)
    .query(({ ctx, input }) => ctx.services.shares.list(ctx.actor, input.reviewUid)),
  revoke: protectedProcedure
    .input(shareInput)
    .mutation(({ ctx, input }) => ctx.services.shares.revoke(ctx.actor, input.uid)),
  review: publicProcedure.input(shareTokenInput).query(({ ctx, input }) => ctx.services.spectators.review(input.token)),
  findings: publicProcedure
    .input(shareTokenInput)
    .query(({ ctx, input }) => ctx.services.spectators.findings(input.token)),
  events: publicProcedure
    .input(shareTokenInput.extend({ afterSeq: z.number().int().nonnegative().default(0) }))
    .query(({ ctx, input }) => ctx.services.spectators.events(input.token, input.afterSeq)),
});
