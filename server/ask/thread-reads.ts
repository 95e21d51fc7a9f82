/** What a viewer reads of the conversations (service.ts): a project's (or review's) threads, and one thread. */
import type { z } from "zod";
import { requireRole, type Actor } from "../auth/access.ts";
import type { Db, Project } from "../db/client.ts";
import { notFound } from "../errors.ts";
import type { threadInput, threadsInput } from "./inputs.ts";
import { messageView, snapshotUids, threadInclude, threadView, userNames, type ThreadRow } from "./views.ts";

export const noThread = (uid: string) =>
  notFound(`No conversation with id ${uid}. It may have been deleted with its project or review.`);

export function createThreadReads(db: Db) {
  async function loadThread(actor: Actor, threadUid: string, role: "viewer" | "member"): Promise<ThreadRow> {
    const t = await db.askThread.findUnique({ where: { uid: threadUid }, include: threadInclude });
    if (!t) throw noThread(threadUid);
    await requireRole(db, actor, t.workspaceId, role);
    return t as ThreadRow;
  }

  async function loadProject(actor: Actor, projectUid: string, role: "viewer" | "member"): Promise<Project> {
    const p = await db.project.findUnique({ where: { uid: projectUid } });
    if (!p) throw notFound(`No project with id ${projectUid}. It may have been deleted.`);
    await requireRole(db, actor, p.workspaceId, role);
    return p;
  }

  return {
    async threads(actor: Actor, input: z.infer<typeof threadsInput>) {
      const project = await loadProject(actor, input.projectUid, "viewer");
      let reviewId: string | undefined;
      if (input.reviewUid) {
        const review = await db.review.findUnique({
          where: { uid: input.reviewUid },
          select: { id: true, projectId: true },
        });
        if (!review || review.projectId !== project.id) throw notFound("That review is not one of this project's.");
        reviewId = review.id;
      }
      const rows = (await db.askThread.findMany({
        where: { projectId: project.id, ...(reviewId ? { reviewId } : {}) },
        include: threadInclude,
        orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
        take: 100,
      })) as ThreadRow[];
      const [names, snaps] = await Promise.all([
        userNames(
          db,
          rows.map((t) => t.createdById),
        ),
        snapshotUids(
          db,
          rows.map((t) => t.snapshotId),
        ),
      ]);
      return rows.map((t) => threadView(t, snaps.get(t.snapshotId) ?? "", names));
    },

    async thread(actor: Actor, input: z.infer<typeof threadInput>) {
      const t = await loadThread(actor, input.threadUid, "viewer");
      const rows = await db.askMessage.findMany({
        where: { threadId: t.id },
        // A question and its answer are written in the same statement (same createdAt): question first.
        orderBy: [{ createdAt: "asc" }, { kind: "desc" }, { id: "asc" }],
        take: 500,
      });
      const [names, snaps] = await Promise.all([
        userNames(db, [t.createdById, ...rows.map((m) => m.authorId)]),
        snapshotUids(db, [t.snapshotId]),
      ]);
      return {
        thread: threadView(t, snaps.get(t.snapshotId) ?? "", names),
        messages: rows.map((m) => messageView(m, t.uid, names)),
      };
    },
  };
}
