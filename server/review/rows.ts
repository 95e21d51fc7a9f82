/**
 * What every part of the review service shares: its dependencies, the review rows it loads (with the
 * caller's role checked), and the status event it publishes to a review's room.
 */
import { requireRole, type Actor } from "../auth/access.ts";
import type { Signals } from "../cluster/signals.ts";
import type { Db, Review } from "../db/client.ts";
import { notFound } from "../errors.ts";
import type { EventBus } from "../events/bus.ts";
import type { JobQueue } from "../jobs/queue.ts";
import type { Logger } from "../logger.ts";
import type { ProviderService } from "../providers/service.ts";
import { reviewRoom } from "../shared/rooms.ts";
import type { ReviewStatus } from "../shared/statuses.ts";
import type { Steering } from "./steering.ts";

export interface ReviewDeps {
  db: Db;
  queue: JobQueue;
  events: EventBus;
  log: Logger;
  providers: ProviderService;
  steering: Pick<Steering, "stateOf">;
  signals: Signals;
  /** Running reviews' cancel switches (this process only; see job.ts). */
  running: Map<string, AbortController>;
}

export type ReviewRow = Review & { project: { uid: string; name: string } };

export async function loadReview(db: Db, uid: string): Promise<ReviewRow> {
  const r = await db.review.findUnique({
    where: { uid },
    include: { project: { select: { uid: true, name: true } } },
  });
  if (!r) throw notFound(`No review with id ${uid}. It may have been deleted.`);
  return r;
}

export async function loadReviewFor(db: Db, actor: Actor, uid: string, role: "viewer" | "member") {
  const r = await loadReview(db, uid);
  await requireRole(db, actor, r.workspaceId, role);
  return r;
}

export async function publishStatus(events: EventBus, r: Pick<Review, "uid" | "status" | "statusReason">) {
  await events.publish(reviewRoom(r.uid), {
    type: "review_status",
    payload: { status: r.status as ReviewStatus, reason: r.statusReason },
  });
}
