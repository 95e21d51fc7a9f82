import { z } from "zod";
import { findingsInput, importGitInput, importPathInput, searchInput } from "../../snapshots/service.ts";
import { protectedProcedure, router } from "../init.ts";

const snapshotInput = z.object({ snapshotUid: z.uuid() });
const fileInput = snapshotInput.extend({ path: z.string().min(1).max(4096) });

export const snapshotsRouter = router({
  list: protectedProcedure
    .input(z.object({ projectUid: z.uuid() }))
    .query(({ ctx, input }) => ctx.services.snapshots.list(ctx.actor, input.projectUid)),
  get: protectedProcedure
    .input(snapshotInput)
    .query(({ ctx, input }) => ctx.services.snapshots.get(ctx.actor, input.snapshotUid)),
  importGit: protectedProcedure
    .input(importGitInput)
    .mutation(({ ctx, input }) => ctx.services.snapshots.importGit(ctx.actor, input)),
  importPath: protectedProcedure
    .input(importPathInput)
    .mutation(({ ctx, input }) => ctx.services.snapshots.importPath(ctx.actor, input)),
  tree: protectedProcedure
    .input(snapshotInput)
    .query(({ ctx, input }) => ctx.services.snapshots.tree(ctx.actor, input.snapshotUid)),
  file: protectedProcedure
    .input(fileInput)
    .query(({ ctx, input }) => ctx.services.snapshots.file(ctx.actor, input.snapshotUid, input.path)),
  outline: protectedProcedure
    .input(fileInput)
    .query(({ ctx, input }) => ctx.services.snapshots.outline(ctx.actor, input.snapshotUid, input.path)),
  search: protectedProcedure
    .input(searchInput)
    .query(({ ctx, input }) => ctx.services.snapshots.search(ctx.actor, input)),
  findings: protectedProcedure
    .input(findingsInput)
    .query(({ ctx, input }) => ctx.services.snapshots.findings(ctx.actor, input)),
});
