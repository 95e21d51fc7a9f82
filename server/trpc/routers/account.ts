import { z } from "zod";
import { preferencesInput } from "../../rooms/preferences.ts";
import { createInviteInput, inviteTokenInput, signUpInput } from "../../workspaces/service.ts";
import { protectedProcedure, publicProcedure, router } from "../init.ts";

const workspaceInput = z.object({ workspaceId: z.string().min(1) });

export const accountRouter = router({
  setupState: publicProcedure.query(async ({ ctx }) => ({
    needsSetup: await ctx.services.workspaces.needsSetup(),
    signedIn: ctx.actor !== null,
  })),
  signUp: publicProcedure.input(signUpInput).mutation(async ({ ctx, input }) => {
    const { headers, workspaceId, role } = await ctx.services.workspaces.signUp(input);
    for (const cookie of headers.getSetCookie()) ctx.appendResponseHeader("set-cookie", cookie);
    return { workspaceId, role };
  }),
  me: protectedProcedure.query(({ ctx }) => ctx.services.workspaces.me(ctx.actor)),
  /** The signed-in user's own choices, on every device (hide my position in rooms). */
  preferences: protectedProcedure.query(({ ctx }) => ctx.services.preferences.get(ctx.actor)),
  setPreferences: protectedProcedure
    .input(preferencesInput)
    .mutation(({ ctx, input }) => ctx.services.preferences.set(ctx.actor, input)),
  inviteInfo: publicProcedure
    .input(inviteTokenInput)
    .query(({ ctx, input }) => ctx.services.workspaces.inviteInfo(input.token)),
  acceptInvite: protectedProcedure
    .input(inviteTokenInput)
    .mutation(({ ctx, input }) => ctx.services.workspaces.acceptInvite(ctx.actor, input.token)),
  createInvite: protectedProcedure
    .input(createInviteInput)
    .mutation(({ ctx, input }) => ctx.services.workspaces.createInvite(ctx.actor, input)),
  invites: protectedProcedure
    .input(workspaceInput)
    .query(({ ctx, input }) => ctx.services.workspaces.listInvites(ctx.actor, input.workspaceId)),
  revokeInvite: protectedProcedure
    .input(z.object({ id: z.string().min(1) }))
    .mutation(({ ctx, input }) => ctx.services.workspaces.revokeInvite(ctx.actor, input.id)),
});
