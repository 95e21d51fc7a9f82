import { changeRoleInput, createWorkspaceInput, memberInput, workspaceIdInput } from "../../workspaces/members.ts";
import { protectedProcedure, router } from "../init.ts";

/**
 * Creating workspaces, switching between them and managing their members. The list of the user's own
 * workspaces (with role and the current one) is part of `account.me`, the app shell's one query.
 */
export const workspacesRouter = router({
  create: protectedProcedure
    .input(createWorkspaceInput)
    .mutation(({ ctx, input }) => ctx.services.workspaces.create(ctx.actor, input)),
  switch: protectedProcedure
    .input(workspaceIdInput)
    .mutation(({ ctx, input }) => ctx.services.workspaces.switchTo(ctx.actor, input.workspaceId)),
  members: protectedProcedure
    .input(workspaceIdInput)
    .query(({ ctx, input }) => ctx.services.workspaces.listMembers(ctx.actor, input.workspaceId)),
  changeRole: protectedProcedure
    .input(changeRoleInput)
    .mutation(({ ctx, input }) => ctx.services.workspaces.changeRole(ctx.actor, input)),
  removeMember: protectedProcedure
    .input(memberInput)
    .mutation(({ ctx, input }) => ctx.services.workspaces.removeMember(ctx.actor, input)),
  leave: protectedProcedure
    .input(workspaceIdInput)
    .mutation(({ ctx, input }) => ctx.services.workspaces.leave(ctx.actor, input.workspaceId)),
});
