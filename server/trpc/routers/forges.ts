import { z } from "zod";
import { connectInstallationInput, disconnectInstallationInput, repoModeInput } from "../../forges/service.ts";
import { connectGitLabInput, disconnectGitLabInput } from "../../forges/gitlab/connection.ts";
import { removeAppInput, saveAppInput } from "../../forges/workspace-apps.ts";
import { protectedProcedure, router } from "../init.ts";

/** Pull requests on forges (server/forges): the App and installations (owners), repository settings, a review's PR. */
export const forgesRouter = router({
  installations: protectedProcedure
    .input(z.object({ workspaceId: z.string().min(1) }))
    .query(async ({ ctx, input }) => ({
      githubConfigured: ctx.services.forges.githubConfigured(),
      app: await ctx.services.forges.app(ctx.actor, input.workspaceId),
      installations: await ctx.services.forges.installations(ctx.actor, input.workspaceId),
    })),
  /** A workspace's own GitHub App (when the environment has none): the key and secret sealed, never returned. */
  saveApp: protectedProcedure
    .input(saveAppInput)
    .mutation(({ ctx, input }) => ctx.services.forges.saveApp(ctx.actor, input)),
  removeApp: protectedProcedure
    .input(removeAppInput)
    .mutation(({ ctx, input }) => ctx.services.forges.removeApp(ctx.actor, input)),
  connect: protectedProcedure
    .input(connectInstallationInput)
    .mutation(({ ctx, input }) => ctx.services.forges.connectInstallation(ctx.actor, input)),
  disconnect: protectedProcedure
    .input(disconnectInstallationInput)
    .mutation(({ ctx, input }) => ctx.services.forges.disconnectInstallation(ctx.actor, input)),
  setRepoMode: protectedProcedure
    .input(repoModeInput)
    .mutation(({ ctx, input }) => ctx.services.forges.setRepoMode(ctx.actor, input)),
  gitlabConnections: protectedProcedure
    .input(z.object({ workspaceId: z.string().min(1) }))
    .query(({ ctx, input }) => ctx.services.forges.gitlabConnections(ctx.actor, input.workspaceId)),
  gitlabSetup: protectedProcedure
    .input(z.object({ workspaceId: z.string().min(1) }))
    .query(({ ctx, input }) => ctx.services.forges.gitlabSetup(ctx.actor, input.workspaceId)),
  connectGitLab: protectedProcedure
    .input(connectGitLabInput)
    .mutation(({ ctx, input }) => ctx.services.forges.connectGitLab(ctx.actor, input)),
  disconnectGitLab: protectedProcedure
    .input(disconnectGitLabInput)
    .mutation(({ ctx, input }) => ctx.services.forges.disconnectGitLab(ctx.actor, input)),
  pullOfReview: protectedProcedure
    .input(z.object({ reviewUid: z.uuid() }))
    .query(({ ctx, input }) => ctx.services.forges.pullOfReview(ctx.actor, input.reviewUid)),
});
