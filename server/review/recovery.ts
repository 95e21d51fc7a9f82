/**
 * Reviews whose run was cut off, under the restart policy (service.ts's header): the start-up sweep
 * of the in-process queue, a shared queue's take-over by another worker, and a job it gave up.
 */
import type { Review } from "../db/client.ts";
import { ACTIVE_REVIEW_STATUSES, isActiveReview } from "../shared/statuses.ts";
import { publishStatus, type ReviewDeps } from "./rows.ts";

/** Why a review stopped when the process (or worker) running it did. */
export const STOPPED_REASONS = {
  restart: "Interrupted by a server restart. Re-run the review.",
  pausedRestart: "The server restarted while this review was paused; it starts again from the beginning when resumed.",
  worker:
    "The worker running this review stopped before it finished (its process ended). A model conversation cannot be resumed, and running it again would spend the budget twice: re-run the review.",
  pausedWorker:
    "The worker running this review stopped while it was paused; it starts again from the beginning when resumed.",
  staticWorker: "The worker running this review stopped before it finished; another worker runs it again.",
  abandoned:
    "Two workers stopped while running this review (their processes ended), so it was given up. Re-run the review.",
} as const;

/** Paused by a teammate when its run was cut off: queued again, still paused; starts over when resumed. */
async function requeuePaused({ db, events }: ReviewDeps, r: Review, statusReason: string) {
  await db.review.update({ where: { id: r.id }, data: { status: "queued", statusReason } });
  await db.reviewSteer.updateMany({ where: { reviewId: r.id, kind: "hint" }, data: { deliveredAt: null } });
  await publishStatus(events, { uid: r.uid, status: "queued", statusReason });
}

/** Fails a review that is still going; false when it had ended meanwhile. */
async function failActive(
  { db, events }: ReviewDeps,
  r: Pick<Review, "id" | "uid">,
  statusReason: string,
): Promise<boolean> {
  const { count } = await db.review.updateMany({
    where: { id: r.id, status: { in: [...ACTIVE_REVIEW_STATUSES] } },
    data: { status: "failed", statusReason, finishedAt: new Date() },
  });
  if (count) await publishStatus(events, { uid: r.uid, status: "failed", statusReason });
  return count > 0;
}

/** On start (in-process queue only): see the restart policy at the top of service.ts. */
export async function recoverInterruptedReviews(d: ReviewDeps): Promise<{ failed: number; requeued: number }> {
  const { db, queue } = d;
  const stuck = await db.review.findMany({
    where: { status: { in: [...ACTIVE_REVIEW_STATUSES] } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  let failed = 0;
  let requeued = 0;
  for (const r of stuck) {
    const steering = r.status === "running" ? await d.steering.stateOf(r.id) : null;
    if (steering?.paused && !steering.stopRequested) {
      // Its conversation could not be kept, so when it is resumed it starts from the beginning
      // (with every hint given so far unsent).
      await requeuePaused(d, r, STOPPED_REASONS.pausedRestart);
      await queue.enqueue("review", { reviewId: r.id });
      requeued++;
    } else if (r.status === "running") {
      const statusReason = STOPPED_REASONS.restart;
      await db.review.update({
        where: { id: r.id },
        data: { status: "failed", statusReason, finishedAt: new Date() },
      });
      await publishStatus(d.events, { uid: r.uid, status: "failed", statusReason });
      failed++;
    } else {
      await db.review.update({ where: { id: r.id }, data: { status: "queued" } });
      await queue.enqueue("review", { reviewId: r.id });
      requeued++;
    }
  }
  return { failed, requeued };
}

/**
 * A shared queue handed this review's job to another worker after the one running it stopped:
 * the same policy as a restart (top of service.ts). True when the job should run it now.
 */
export async function takeOverReview(d: ReviewDeps, reviewId: string): Promise<boolean> {
  const r = await d.db.review.findUnique({ where: { id: reviewId } });
  if (!r || r.status !== "running") return r !== null && isActiveReview(r.status);
  const steering = await d.steering.stateOf(r.id);
  if (r.engine === "agent" && steering.paused && !steering.stopRequested) {
    await requeuePaused(d, r, STOPPED_REASONS.pausedWorker);
    return true;
  }
  if (r.engine !== "agent") {
    // No model, no budget: running it again costs a few seconds and gives the same report.
    const statusReason = STOPPED_REASONS.staticWorker;
    await d.db.review.update({ where: { id: r.id }, data: { status: "queued", statusReason } });
    await publishStatus(d.events, { uid: r.uid, status: "queued", statusReason });
    return true;
  }
  await failActive(d, r, STOPPED_REASONS.worker);
  return false;
}

/** The shared queue gave the job up (its workers stopped twice): the review fails, saying so. */
export async function abandonReview(d: ReviewDeps, reviewId: string): Promise<void> {
  const r = await d.db.review.findUnique({ where: { id: reviewId }, select: { id: true, uid: true } });
  if (r) await failActive(d, r, STOPPED_REASONS.abandoned);
}
