import { askInput, budgetInput, cancelInput, setBudgetInput, threadInput, threadsInput } from "../../ask/service.ts";
import { draftInput, saveFindingInput, teamFindingsInput } from "../../ask/findings.ts";
import { protectedProcedure, router } from "../init.ts";

/** Ask Argus (server/ask): conversations, the daily chat budget, answers turned into findings. */
export const askRouter = router({
  threads: protectedProcedure.input(threadsInput).query(({ ctx, input }) => ctx.services.ask.threads(ctx.actor, input)),
  thread: protectedProcedure.input(threadInput).query(({ ctx, input }) => ctx.services.ask.thread(ctx.actor, input)),
  ask: protectedProcedure.input(askInput).mutation(({ ctx, input }) => ctx.services.ask.ask(ctx.actor, input)),
  cancel: protectedProcedure.input(cancelInput).mutation(({ ctx, input }) => ctx.services.ask.cancel(ctx.actor, input)),
  budget: protectedProcedure.input(budgetInput).query(({ ctx, input }) => ctx.services.ask.budget(ctx.actor, input)),
  setBudget: protectedProcedure
    .input(setBudgetInput)
    .mutation(({ ctx, input }) => ctx.services.ask.setBudget(ctx.actor, input)),
  findingDraft: protectedProcedure
    .input(draftInput)
    .query(({ ctx, input }) => ctx.services.ask.findings.draft(ctx.actor, input)),
  saveFinding: protectedProcedure
    .input(saveFindingInput)
    .mutation(({ ctx, input }) => ctx.services.ask.findings.save(ctx.actor, input)),
  teamFindings: protectedProcedure
    .input(teamFindingsInput)
    .query(({ ctx, input }) => ctx.services.ask.findings.teamFindings(ctx.actor, input)),
});
