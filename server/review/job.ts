/**
 * The review job: loads what the review was started with, runs it (job-run.ts over run.ts), and records
 * the outcome (job-outcome.ts) — report, findings, per-file rollup — in one transaction (save-report.ts),
 * so a review is either completed with everything or failed/cancelled with nothing half-written. Every
 * step is an event in the review's room.
 */
import { StopNow } from "../agent/index.ts";
import { isActiveReview } from "../shared/statuses.ts";
import { reviewRoom } from "../shared/rooms.ts";
import type { JobContext, JobMap } from "../jobs/queue.ts";
import { completeReview, failReview } from "./job-outcome.ts";
import { runStartedReview } from "./job-run.ts";
import type { ReviewJobDeps } from "./job-deps.ts";

export type { ReviewJobDeps };

export function createReviewJob(deps: ReviewJobDeps) {
  const { db, events } = deps;

  return async function runReviewJob({ reviewId }: JobMap["review"], ctx?: JobContext): Promise<void> {
    if (ctx?.takeover && deps.takeOver && !(await deps.takeOver(reviewId))) return;
    const review = await db.review.findUnique({ where: { id: reviewId } });
    if (!review || !isActiveReview(review.status)) return; // cancelled or deleted while queued
    const room = reviewRoom(review.uid);
    // The cancel switch exists before the review shows as running, so a cancel never finds a
    // running review without one (it would only flip the status while the model kept working).
    const controller = new AbortController();
    deps.running.set(review.id, controller);
    const unwatchStop = deps.steering.watchStop(review.id, (message) => controller.abort(new StopNow(message)));
    const started = await db.review.updateMany({
      where: { id: review.id, status: { in: ["pending", "queued"] } },
      data: { status: "running", startedAt: new Date(), progress: 0.05, statusReason: null },
    });
    if (started.count === 0) {
      deps.running.delete(review.id); // cancelled between the read and now
      unwatchStop();
      return;
    }
    await events.publish(room, { type: "review_status", payload: { status: "running" } });

    try {
      const run = await runStartedReview(deps, review, room, controller);
      await completeReview(deps, review, room, controller, run);
    } catch (err) {
      await failReview(deps, review, room, controller, err);
    } finally {
      unwatchStop();
      deps.running.delete(review.id);
    }
  };
}
