/**
 * How a review's job ends, told to its room: completed (the report saved, its summary, the status,
 * the starter notified, the loop's stop reason) or failed / cancelled (the row, the reason, the starter).
 */
import type { Review } from "../db/client.ts";
import { isUserFacing } from "../errors.ts";
import { publicError } from "../errors-public.ts";
import { isStopNow } from "../agent/index.ts";
import type { RoomName } from "../shared/rooms.ts";
import type { ReviewJobDeps } from "./job-deps.ts";
import type { ReviewRunOutcome } from "./job-run.ts";
import { saveReport } from "./save-report.ts";

export async function completeReview(
  { db, events, notify }: ReviewJobDeps,
  review: Review,
  room: RoomName,
  controller: AbortController,
  { result, agentDone }: ReviewRunOutcome,
): Promise<void> {
  // A Stop (StopNow) ends the run with the partial report, saved like any other.
  if (controller.signal.aborted && !isStopNow(controller.signal.reason)) throw controller.signal.reason;
  await saveReport(db, review.id, review.projectId, result.report, result.usage);
  await events.publish(room, {
    type: "report",
    payload: {
      overallScore: result.report.overallScore,
      findings: result.report.findings.length,
      stages: result.report.stages,
      notes: result.report.notes,
    },
  });
  // A stopped review says who stopped it (the activity log's last status line).
  const reason = isStopNow(controller.signal.reason) ? controller.signal.reason.message : undefined;
  const ended = await events.publish(room, { type: "review_status", payload: { status: "completed", reason } });
  await notify.reviewEnded(review, { status: "completed", findings: result.report.findings.length }, ended.seq);
  // The loop's stop reason (the static engine has no loop: it ends by itself, in no model turns).
  const { type: _done, ...done } = agentDone ?? { type: "done", stopReason: "end_turn", iterations: 0, notes: [] };
  await events.publish(room, { type: "done", payload: { ...done, notes: result.report.notes } });
}

export async function failReview(
  { db, events, log, notify }: ReviewJobDeps,
  review: Review,
  room: RoomName,
  controller: AbortController,
  err: unknown,
): Promise<void> {
  const cancelled = controller.signal.aborted && !isStopNow(controller.signal.reason);
  // Every viewer of the room reads the reason: an unexpected error's detail goes to the log only.
  const reason = cancelled
    ? "Cancelled by a user."
    : publicError(err, { doing: "running the review", log, context: { review: review.uid } }).message;
  if (!cancelled && isUserFacing(err)) log.warn({ err, review: review.uid }, "review failed");
  const { count } = await db.review.updateMany({
    where: { id: review.id, status: "running" },
    data: {
      status: cancelled ? "cancelled" : "failed",
      statusReason: reason.slice(0, 2000),
      finishedAt: new Date(),
    },
  });
  if (count === 0) return; // already cancelled (and announced) by the service
  if (!cancelled) await events.publish(room, { type: "error", payload: { message: reason } });
  const ended = await events.publish(room, {
    type: "review_status",
    payload: { status: cancelled ? "cancelled" : "failed", reason },
  });
  if (!cancelled) await notify.reviewEnded(review, { status: "failed", reason }, ended.seq);
}
