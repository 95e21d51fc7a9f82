/** A review as the pages show it: the list's view of its row, and the review page's detail. */
import type { Db } from "../db/client.ts";
import type { SteeringState } from "../shared/steering.ts";
import type { ReviewStatus } from "../shared/statuses.ts";
import {
  reportSchema,
  type Report,
  type ReviewBudget,
  type ReviewScope,
  type ReviewSettings,
  type Severity,
} from "./report/schema.ts";
import type { ReviewDeps, ReviewRow } from "./rows.ts";

export interface ReviewView {
  uid: string;
  projectUid: string;
  projectName: string;
  snapshotUid: string | null;
  engine: "static" | "agent";
  status: ReviewStatus;
  statusReason: string | null;
  scope: ReviewScope;
  promptName: string | null;
  provider: string | null;
  model: string | null;
  /** The model connection's name (agent reviews). */
  connectionName: string | null;
  budget: ReviewBudget;
  settings: ReviewSettings;
  progress: number;
  scoreOverall: number | null;
  findingsCount: number;
  usage: { inputTokens: number; outputTokens: number; costUsd?: number; iterations?: number } | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/** What the review page shows of one review (`reviews.get`). */
export type ReviewDetail = ReviewView & {
  report: Omit<Report, "findings"> | null;
  files: { path: string; score: number; counts: Record<Severity, number> }[];
  /** Paused / stop asked for, and by whom (a reload shows it as it is). */
  steering: SteeringState;
};
/** What a share link's spectator sees of it (`shares.review`). */
export type SharedReviewDetail = Omit<ReviewDetail, "projectUid" | "snapshotUid" | "budget" | "settings">;

async function snapshotUid(db: Db, id: string): Promise<string | null> {
  return (await db.snapshot.findUnique({ where: { id }, select: { uid: true } }))?.uid ?? null;
}

export async function reviewView(db: Db, r: ReviewRow): Promise<ReviewView> {
  return {
    uid: r.uid,
    projectUid: r.project.uid,
    projectName: r.project.name,
    snapshotUid: await snapshotUid(db, r.snapshotId),
    engine: r.engine as ReviewView["engine"],
    status: r.status as ReviewView["status"],
    statusReason: r.statusReason,
    scope: JSON.parse(r.scope) as ReviewScope,
    promptName: r.promptName,
    provider: r.provider,
    model: r.model,
    connectionName: r.connectionName,
    budget: JSON.parse(r.budget) as ReviewBudget,
    settings: JSON.parse(r.settings) as ReviewSettings,
    progress: r.progress,
    scoreOverall: r.scoreOverall,
    findingsCount: r.findingsCount,
    usage: r.usage ? (JSON.parse(r.usage) as ReviewView["usage"]) : null,
    createdAt: r.createdAt,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
  };
}

export async function reviewDetail({ db, steering }: ReviewDeps, r: ReviewRow): Promise<ReviewDetail> {
  const report = r.report ? reportSchema.parse(JSON.parse(r.report)) : null;
  const files = await db.reviewFile.findMany({
    where: { reviewId: r.id },
    orderBy: [{ score: "asc" }, { path: "asc" }],
  });
  const { findings: _f, ...reportRest } = report ?? ({ findings: [] } as unknown as Report);
  return {
    ...(await reviewView(db, r)),
    report: report ? reportRest : null,
    files: files.map((f) => ({
      path: f.path,
      score: f.score,
      counts: { critical: f.critical, high: f.high, medium: f.medium, low: f.low, info: f.info },
    })),
    steering: await steering.stateOf(r.id),
  };
}
