/**
 * Records a finished review in one transaction: its findings, its per-file rollup and the completed
 * row — or nothing, when the review was cancelled meanwhile.
 */
import type { Db } from "../db/client.ts";
import { traceJson } from "../shared/findings.ts";
import type { Report } from "./report/schema.ts";

export async function saveReport(
  db: Db,
  reviewId: string,
  projectId: string,
  report: Report,
  usage: unknown,
): Promise<void> {
  await db.$transaction(async (tx) => {
    await tx.reviewFinding.deleteMany({ where: { reviewId } });
    await tx.reviewFile.deleteMany({ where: { reviewId } });
    if (report.findings.length) {
      await tx.reviewFinding.createMany({
        data: report.findings.map((f) => ({
          reviewId,
          projectId,
          fingerprint: f.fingerprint,
          title: f.title,
          severity: f.severity,
          confidence: f.confidence,
          category: f.category,
          file: f.file,
          startLine: f.startLine,
          endLine: f.endLine,
          evidence: f.evidence,
          explanation: f.explanation,
          suggestedFix: f.suggestedFix ?? null,
          diff: f.diff ?? null,
          verification: f.verification,
          verificationNote: f.verificationNote ?? null,
          source: f.source,
          ruleId: f.ruleId ?? null,
          trace: traceJson(f.trace),
        })),
      });
    }
    if (report.files.length) {
      await tx.reviewFile.createMany({
        data: report.files.map((f) => ({ reviewId, path: f.path, score: f.score, ...f.counts })),
      });
    }
    // Only a review still running completes: one cancelled meanwhile keeps its status, and the
    // findings written above roll back with this transaction.
    const { count } = await tx.review.updateMany({
      where: { id: reviewId, status: "running" },
      data: {
        status: "completed",
        progress: 1,
        report: JSON.stringify(report),
        scoreOverall: report.overallScore,
        findingsCount: report.findings.length,
        usage: usage ? JSON.stringify(usage) : null,
        finishedAt: new Date(),
      },
    });
    if (count === 0) throw new Error("Cancelled by a user.");
  });
}
