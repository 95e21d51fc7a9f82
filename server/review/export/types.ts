/**
 * What every export renders: the stored report (with all its findings) plus the review's metadata and
 * the project's false-positive marks. Built by load.ts; the renderers are pure functions of it.
 */
import type { Report } from "../report/schema.ts";
import type { ReviewView } from "../service.ts";

export type ExportReview = Pick<
  ReviewView,
  | "uid"
  | "projectUid"
  | "projectName"
  | "snapshotUid"
  | "engine"
  | "status"
  | "statusReason"
  | "scope"
  | "promptName"
  | "provider"
  | "model"
  | "usage"
  | "settings"
  | "createdAt"
  | "startedAt"
  | "finishedAt"
>;

export interface ExportInput {
  review: ExportReview;
  report: Report;
  /** Fingerprints the project marked false positive (they stay in exports, marked as such). */
  dismissed: ReadonlySet<string>;
}

export const EXPORT_FORMATS = ["md", "sarif", "json"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface RenderedExport {
  body: string;
  contentType: string;
  filename: string;
}
