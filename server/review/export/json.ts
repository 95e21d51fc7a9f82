/**
 * The JSON export: the stored report as Argus validated it, each finding with `dismissed`, and the
 * review's metadata. `format` versions the document so scripts can tell what they read.
 */
import type { ExportInput } from "./types.ts";

export const JSON_EXPORT_FORMAT = "argus.review/v1";

export function toJson({ review, report, dismissed }: ExportInput) {
  return {
    format: JSON_EXPORT_FORMAT,
    review: {
      uid: review.uid,
      project: { uid: review.projectUid, name: review.projectName },
      snapshotUid: review.snapshotUid,
      engine: review.engine,
      status: review.status,
      statusReason: review.statusReason,
      scope: review.scope,
      prompt: review.promptName,
      provider: review.provider,
      model: review.model,
      settings: review.settings,
      usage: review.usage,
      createdAt: review.createdAt,
      startedAt: review.startedAt,
      finishedAt: review.finishedAt,
    },
    report: { ...report, findings: report.findings.map((f) => ({ ...f, dismissed: dismissed.has(f.fingerprint) })) },
  };
}
