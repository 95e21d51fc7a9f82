/**
 * Reading reviews beyond one row: a workspace's list (paged), a project's trend, and what a share
 * link's spectators read of the one review it opens.
 */
import type { z } from "zod";
import { requireRole, type Actor } from "../auth/access.ts";
import { notFound } from "../errors.ts";
import { HIDDEN_FROM_SPECTATORS } from "../rooms/spectators.ts";
import { reviewRoom } from "../shared/rooms.ts";
import type { ShareGrant } from "../shares/service.ts";
import { findingRows } from "./finding-rows.ts";
import { findingsInput, type listReviewsInput } from "./inputs.ts";
import { SEVERITIES, type Severity } from "./report/schema.ts";
import { loadReview, type ReviewDeps } from "./rows.ts";
import { reviewDetail, reviewView, type ReviewView, type SharedReviewDetail } from "./views.ts";

export async function listReviews(
  { db }: ReviewDeps,
  actor: Actor,
  input: z.infer<typeof listReviewsInput>,
): Promise<{ items: ReviewView[]; nextCursor: string | null }> {
  await requireRole(db, actor, input.workspaceId, "viewer");
  let projectId: string | undefined;
  if (input.projectUid) {
    const p = await db.project.findUnique({
      where: { uid: input.projectUid },
      select: { id: true, workspaceId: true },
    });
    if (!p || p.workspaceId !== input.workspaceId)
      throw notFound(`No project with id ${input.projectUid} in this workspace.`);
    projectId = p.id;
  }
  const rows = await db.review.findMany({
    where: { workspaceId: input.workspaceId, projectId, status: input.status },
    include: { project: { select: { uid: true, name: true } } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
    ...(input.cursor ? { cursor: { uid: input.cursor }, skip: 1 } : {}),
  });
  const page = rows.slice(0, input.limit);
  return {
    items: await Promise.all(page.map((r) => reviewView(db, r))),
    nextCursor: rows.length > input.limit ? page[page.length - 1]!.uid : null,
  };
}

/** Findings by severity across the project's completed reviews, oldest first (the trend chart). */
export async function reviewTrend({ db }: ReviewDeps, actor: Actor, projectUid: string) {
  const project = await db.project.findUnique({ where: { uid: projectUid } });
  if (!project) throw notFound(`No project with id ${projectUid}.`);
  await requireRole(db, actor, project.workspaceId, "viewer");
  const reviews = await db.review.findMany({
    where: { projectId: project.id, status: "completed" },
    orderBy: { finishedAt: "asc" },
    take: 200,
    select: { id: true, uid: true, engine: true, finishedAt: true, scoreOverall: true },
  });
  const counts = await db.reviewFinding.groupBy({
    by: ["reviewId", "severity"],
    where: { reviewId: { in: reviews.map((r) => r.id) } },
    _count: { _all: true },
  });
  return reviews.map((r) => {
    const bySeverity = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
    for (const c of counts) if (c.reviewId === r.id) bySeverity[c.severity as Severity] = c._count._all;
    return { uid: r.uid, engine: r.engine, finishedAt: r.finishedAt, score: r.scoreOverall, ...bySeverity };
  });
}

/**
 * The review a share link opens, for its spectators: the link is the right (server/shares checked
 * it; no workspace role here). What the review page shows, without the ids of its project and
 * snapshot or its budget and settings: nothing that leads further into the workspace.
 */
export function sharedReview(d: ReviewDeps, grant: ShareGrant) {
  return {
    async get(): Promise<SharedReviewDetail> {
      const {
        projectUid: _p,
        snapshotUid: _s,
        budget: _b,
        settings: _st,
        ...shown
      } = await reviewDetail(d, await loadReview(d.db, grant.reviewUid));
      return shown;
    },
    findings: async () =>
      findingRows(d.db, await loadReview(d.db, grant.reviewUid), findingsInput.parse({ reviewUid: grant.reviewUid })),
    events: (afterSeq: number) =>
      d.events.history(reviewRoom(grant.reviewUid), afterSeq, undefined, { omitTypes: HIDDEN_FROM_SPECTATORS }),
  };
}
