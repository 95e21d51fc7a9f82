/**
 * Gathers an export's input: the review (through the review service, which checks that the actor may
 * read it), its stored report with every finding, and the project's false-positive marks.
 */
import type { Actor } from "../../auth/access.ts";
import type { Db } from "../../db/client.ts";
import { conflict } from "../../errors.ts";
import { reportSchema } from "../report/schema.ts";
import type { ReviewService } from "../service.ts";
import type { ExportInput } from "./types.ts";

export async function loadExportInput(
  deps: { db: Db; reviews: Pick<ReviewService, "get"> },
  actor: Actor,
  reviewUid: string,
): Promise<ExportInput> {
  const review = await deps.reviews.get(actor, reviewUid); // 401/403/404 as for the review page
  const row = await deps.db.review.findUnique({ where: { uid: reviewUid }, select: { report: true, projectId: true } });
  if (!row?.report) {
    throw conflict(
      review.status === "completed"
        ? "This review has no stored report to export."
        : `This review is ${review.status}${review.statusReason ? ` (${review.statusReason})` : ""}; there is a report to export only once it has completed.`,
    );
  }
  const report = reportSchema.parse(JSON.parse(row.report));
  const marks = await deps.db.findingDismissal.findMany({
    where: { projectId: row.projectId },
    select: { fingerprint: true },
  });
  return { review, report, dismissed: new Set(marks.map((m) => m.fingerprint)) };
}
