/** Findings marked as false positives by hand, for their project (and taken back), told to the review's room. */
import type { z } from "zod";
import type { Actor } from "../auth/access.ts";
import { notFound } from "../errors.ts";
import { reviewRoom } from "../shared/rooms.ts";
import type { dismissInput } from "./inputs.ts";
import { loadReviewFor, type ReviewDeps } from "./rows.ts";

export async function dismissFinding(
  { db, events }: ReviewDeps,
  actor: Actor,
  input: z.infer<typeof dismissInput>,
): Promise<void> {
  const r = await loadReviewFor(db, actor, input.reviewUid, "member");
  const finding = await db.reviewFinding.findUnique({
    where: { reviewId_fingerprint: { reviewId: r.id, fingerprint: input.fingerprint } },
  });
  if (!finding) throw notFound("That finding is not part of this review.");
  await db.findingDismissal.upsert({
    where: { projectId_fingerprint: { projectId: r.projectId, fingerprint: input.fingerprint } },
    create: {
      projectId: r.projectId,
      fingerprint: input.fingerprint,
      title: finding.title,
      reason: input.reason ?? null,
      createdById: actor!.userId,
    },
    // Marked by hand now: it stays, whatever the team's votes do later.
    update: { reason: input.reason ?? null, source: "manual" },
  });
  await events.publish(reviewRoom(r.uid), {
    type: "finding_dismissed",
    payload: { fingerprint: input.fingerprint },
  });
}

export async function undismissFinding(
  { db, events }: ReviewDeps,
  actor: Actor,
  input: z.infer<typeof dismissInput>,
): Promise<void> {
  const r = await loadReviewFor(db, actor, input.reviewUid, "member");
  await db.findingDismissal.deleteMany({ where: { projectId: r.projectId, fingerprint: input.fingerprint } });
  await events.publish(reviewRoom(r.uid), {
    type: "finding_restored",
    payload: { fingerprint: input.fingerprint },
  });
}
