/**
 * A new thread (service.ts): what it is asked over — a review (and one of its findings) or a
 * project — with the asker's side of its workspace, and its row before it is written.
 */
import { checkRole } from "../auth/access.ts";
import type { Db, Project, Review, ReviewFinding } from "../db/client.ts";
import { invalid, notFound } from "../errors.ts";
import { projectForAsk, reviewForAsk, type AskWorkspace, type createSnapshotCache } from "./context.ts";
import { findingContext } from "./prompt.ts";
import { titleOf, type ThreadRow } from "./views.ts";

/** Ready snapshots' uids by id (context.ts). */
export type SnapshotCache = ReturnType<typeof createSnapshotCache>;

export type AskTarget = { project: Project } | { review: Review; project: Project; finding: ReviewFinding | null };

/**
 * What a new thread is asked over — a review (and one of its findings) or a project — with the asker's
 * side of its workspace. `role`: checked before anything about the review's findings is said.
 */
export async function targetFor(
  db: Db,
  userId: string,
  where: { reviewUid?: string; fingerprint?: string; projectUid?: string },
  role: "member" | null,
): Promise<{ target: AskTarget; ws: AskWorkspace }> {
  if (where.reviewUid) {
    const found = await reviewForAsk(db, where.reviewUid, userId, where.fingerprint);
    if (!found) throw notFound(`No review with id ${where.reviewUid}. It may have been deleted.`);
    if (role) checkRole(found.ws.role, role);
    if (where.fingerprint && !found.finding) throw notFound("That finding is not part of this review.");
    return { target: found, ws: found.ws };
  }
  const found = await projectForAsk(db, where.projectUid ?? "", userId);
  if (!found) throw notFound(`No project with id ${where.projectUid}. It may have been deleted.`);
  if (role) checkRole(found.ws.role, role);
  return { target: { project: found.project }, ws: found.ws };
}

/** A new thread's row (not yet written): project or review, its snapshot, the finding as context. */
export async function newThread(
  snapshots: SnapshotCache,
  userId: string,
  target: AskTarget,
  question: string,
): Promise<{ row: ThreadRow; snapshotUid: string }> {
  const { project } = target;
  let snapshotId: string;
  let review: Review | null = null;
  let context: string | null = null;
  let fingerprint: string | null = null;
  if (!("review" in target)) {
    if (!project.currentSnapshotId)
      throw invalid("This project has no imported code yet: import it first, then ask about it.");
    snapshotId = project.currentSnapshotId;
  } else {
    review = target.review;
    snapshotId = review.snapshotId;
    if (target.finding) {
      context = findingContext(target.finding);
      fingerprint = target.finding.fingerprint;
    }
  }
  const snapshotUid = await snapshots.readyUid(snapshotId);
  const now = new Date();
  const row: ThreadRow = {
    id: crypto.randomUUID(),
    uid: crypto.randomUUID(),
    workspaceId: project.workspaceId,
    projectId: project.id,
    reviewId: review?.id ?? null,
    fingerprint,
    snapshotId,
    title: titleOf(question),
    context,
    createdById: userId,
    createdAt: now,
    updatedAt: now,
    project: { uid: project.uid },
    review: review ? { uid: review.uid } : null,
  };
  return { row, snapshotUid };
}
