/**
 * A review row (with its project and snapshot) written straight to the database, for tests that need
 * a review room or a finding without running a review. Findings are optional rows of review_finding.
 */
import type { Db } from "../../server/db/client.ts";

export interface ReviewRowOptions {
  status?: string;
  findings?: { fingerprint: string; title?: string; file?: string; startLine?: number }[];
}

export async function createReviewRow(
  db: Db,
  workspaceId: string,
  opts: ReviewRowOptions = {},
): Promise<{ uid: string; id: string; projectId: string; projectUid: string }> {
  const project = await db.project.create({
    data: { uid: crypto.randomUUID(), workspaceId, name: `p ${crypto.randomUUID().slice(0, 8)}` },
  });
  const snapshot = await db.snapshot.create({
    data: { uid: crypto.randomUUID(), projectId: project.id, sourceKind: "zip", sourceLabel: "t.zip", status: "ready" },
  });
  const review = await db.review.create({
    data: {
      uid: crypto.randomUUID(),
      workspaceId,
      projectId: project.id,
      snapshotId: snapshot.id,
      engine: "static",
      status: opts.status ?? "completed",
      scope: JSON.stringify({ kind: "project" }),
      budget: "{}",
      settings: "{}",
    },
  });
  for (const f of opts.findings ?? [])
    await db.reviewFinding.create({
      data: {
        reviewId: review.id,
        projectId: project.id,
        fingerprint: f.fingerprint,
        title: f.title ?? `finding ${f.fingerprint}`,
        severity: "high",
        confidence: 0.9,
        category: "security",
        file: f.file ?? "src/app.ts",
        startLine: f.startLine ?? 1,
        endLine: f.startLine ?? 1,
        evidence: "x",
        explanation: "y",
      },
    });
  return { uid: review.uid, id: review.id, projectId: project.id, projectUid: project.uid };
}
