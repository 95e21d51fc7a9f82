/**
 * Reviews: start (snapshotting prompt, provider, model, scope, budget and noise settings), list, read,
 * cancel, re-run, delete, dismiss findings as false positives, and the per-project trend. Running a
 * review is the job's business (job.ts); this service only records intent and hands it over.
 *
 * Restart policy (decided): a review that was queued but never started is queued again on start;
 * one that was running is failed as "interrupted" (its partial model conversation cannot be resumed
 * faithfully, and re-running it silently would spend the user's budget twice) — unless a teammate had
 * paused it: then it is queued again, still paused, and starts over only when someone resumes it.
 *
 * With a shared queue (REDIS_URL) there is no start-up sweep: a worker that dies mid-review hands
 * the job to another worker (server/jobs/bullmq.ts), which applies the same policy (`takeOver`): an
 * agent review fails with the reason, a static one (no model, no budget) runs again, a paused one is
 * queued again still paused. A job given up after a second dead worker fails (`abandoned`). Cancel
 * reaches the job wherever it runs: the row says cancelled and every node hears `review.cancel`.
 */
import type { z } from "zod";
import { requireUser, type Actor } from "../auth/access.ts";
import { reviewRoom } from "../shared/rooms.ts";
import type { ShareGrant } from "../shares/service.ts";
import { CANCEL_SIGNAL, cancelReview, removeReview } from "./control.ts";
import { dismissFinding, undismissFinding } from "./dismissals.ts";
import { findingRows } from "./finding-rows.ts";
import type { dismissInput, findingsInput, listReviewsInput, startReviewInput } from "./inputs.ts";
import { listReviews, reviewTrend, sharedReview } from "./queries.ts";
import { abandonReview, recoverInterruptedReviews, takeOverReview } from "./recovery.ts";
import { loadReviewFor, type ReviewDeps, type ReviewRow } from "./rows.ts";
import { createReview, rerunReview } from "./start.ts";
import { reviewDetail, reviewView, type ReviewDetail, type ReviewView } from "./views.ts";

export { CANCEL_SIGNAL } from "./control.ts";
export { STOPPED_REASONS } from "./recovery.ts";
export { dismissInput, findingsInput, listReviewsInput, startReviewInput } from "./inputs.ts";
export type { ReviewDetail, ReviewView, SharedReviewDetail } from "./views.ts";

/**
 * Composes the parts, each a module over the shared ReviewDeps (rows.ts): start.ts (start, re-run),
 * queries.ts (list, trend, a share link's reads), views.ts and finding-rows.ts (one review as pages
 * show it), dismissals.ts, control.ts (cancel, delete) and recovery.ts (the restart policy above).
 */
export function createReviewService(deps: Omit<ReviewDeps, "running">) {
  const { db, events, signals } = deps;
  /** Running reviews' cancel switches (this process only; see job.ts). */
  const running = new Map<string, AbortController>();
  // A cancel asked for on another node: stop the run if it is here.
  signals.subscribe(CANCEL_SIGNAL, ({ reviewId }) => {
    if (typeof reviewId === "string") running.get(reviewId)?.abort(new Error("Cancelled by a user."));
  });
  const d: ReviewDeps = { ...deps, running };

  return {
    running,
    view: (r: ReviewRow): Promise<ReviewView> => reviewView(db, r),

    start(actor: Actor, input: z.infer<typeof startReviewInput>) {
      return createReview(d, requireUser(actor), input);
    },

    /**
     * A pull request's review, started by its forge's webhook: no user, the installation's workspace.
     * The uid is the caller's, so the PR can name its review before the review can end.
     */
    startForPullRequest(uid: string, input: z.infer<typeof startReviewInput>, instructions: string | null = null) {
      return createReview(d, null, input, uid, instructions);
    },

    list(actor: Actor, input: z.infer<typeof listReviewsInput>) {
      return listReviews(d, actor, input);
    },

    async get(actor: Actor, uid: string): Promise<ReviewDetail> {
      return reviewDetail(d, await loadReviewFor(db, actor, uid, "viewer"));
    },

    async findings(actor: Actor, input: z.infer<typeof findingsInput>) {
      return findingRows(db, await loadReviewFor(db, actor, input.reviewUid, "viewer"), input);
    },

    /** The review a share link opens, for its spectators (queries.ts). */
    shared(grant: ShareGrant) {
      return sharedReview(d, grant);
    },

    cancel(actor: Actor, uid: string): Promise<ReviewView> {
      return cancelReview(d, actor, uid);
    },

    rerun(actor: Actor, uid: string): Promise<ReviewView> {
      return rerunReview(d, actor, uid);
    },

    remove(actor: Actor, uid: string): Promise<void> {
      return removeReview(d, actor, uid);
    },

    dismiss(actor: Actor, input: z.infer<typeof dismissInput>): Promise<void> {
      return dismissFinding(d, actor, input);
    },

    undismiss(actor: Actor, input: z.infer<typeof dismissInput>): Promise<void> {
      return undismissFinding(d, actor, input);
    },

    /** Findings by severity across the project's completed reviews, oldest first (the trend chart). */
    trend(actor: Actor, projectUid: string) {
      return reviewTrend(d, actor, projectUid);
    },

    async events(actor: Actor, uid: string, afterSeq = 0) {
      const r = await loadReviewFor(db, actor, uid, "viewer");
      return events.history(reviewRoom(r.uid), afterSeq);
    },

    /** On start (in-process queue only): see the restart policy at the top of this file. */
    recoverInterrupted(): Promise<{ failed: number; requeued: number }> {
      return recoverInterruptedReviews(d);
    },

    /**
     * A shared queue handed this review's job to another worker after the one running it stopped:
     * the same policy as a restart (top of this file). True when the job should run it now.
     */
    takeOver(reviewId: string): Promise<boolean> {
      return takeOverReview(d, reviewId);
    },

    /** The shared queue gave the job up (its workers stopped twice): the review fails, saying so. */
    abandoned(reviewId: string): Promise<void> {
      return abandonReview(d, reviewId);
    },
  };
}

export type ReviewService = ReturnType<typeof createReviewService>;
