/** Stopping a review wherever it runs (a cancel), and deleting one that has ended. */
import type { Actor } from "../auth/access.ts";
import { conflict } from "../errors.ts";
import { reviewRoom } from "../shared/rooms.ts";
import { ACTIVE_REVIEW_STATUSES, isActiveReview } from "../shared/statuses.ts";
import { loadReview, loadReviewFor, publishStatus, type ReviewDeps } from "./rows.ts";
import { reviewView, type ReviewView } from "./views.ts";

/** The signal that stops a running review on whichever node runs it: `{ reviewId }`. */
export const CANCEL_SIGNAL = "review.cancel";

export async function cancelReview(d: ReviewDeps, actor: Actor, uid: string): Promise<ReviewView> {
  const { db, events } = d;
  const r = await loadReviewFor(db, actor, uid, "member");
  if (!isActiveReview(r.status))
    throw conflict(
      `This review already ${r.status === "completed" ? "completed" : `is ${r.status}`}; there is nothing to cancel.`,
    );
  const controller = d.running.get(r.id);
  if (controller) {
    controller.abort(new Error("Cancelled by a user."));
  } else if (r.status === "running") {
    // Running on another node (a shared queue): the row decides — the job's own save and its
    // next turn see it — and the node running it is told to stop now.
    const statusReason = "Cancelled by a user.";
    const { count } = await db.review.updateMany({
      where: { id: r.id, status: "running" },
      data: { status: "cancelled", statusReason, finishedAt: new Date() },
    });
    if (count) await publishStatus(events, { uid: r.uid, status: "cancelled", statusReason });
    await d.signals.publish(CANCEL_SIGNAL, { reviewId: r.id });
  } else {
    // Queued, not started: the job sees the status and skips it.
    await db.review.updateMany({
      where: { id: r.id, status: { in: [...ACTIVE_REVIEW_STATUSES] } },
      data: { status: "cancelled", statusReason: "Cancelled before it started.", finishedAt: new Date() },
    });
    await publishStatus(events, { uid: r.uid, status: "cancelled", statusReason: "Cancelled before it started." });
  }
  return reviewView(db, await loadReview(db, uid));
}

export async function removeReview({ db, events }: ReviewDeps, actor: Actor, uid: string): Promise<void> {
  const r = await loadReviewFor(db, actor, uid, "member");
  if (isActiveReview(r.status)) throw conflict("This review is still running. Cancel it first, then delete it.");
  await db.review.delete({ where: { id: r.id } }); // files and findings cascade
  await events.deleteRoom(reviewRoom(r.uid));
}
