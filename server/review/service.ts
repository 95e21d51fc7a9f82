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
import { z } from "zod";
import { requireRole, requireUser, type Actor } from "../auth/access.ts";
import type { Db, Review } from "../db/client.ts";
import { conflict, invalid, notFound } from "../errors.ts";
import type { EventBus } from "../events/bus.ts";
import type { JobQueue } from "../jobs/queue.ts";
import type { Logger } from "../logger.ts";
import { ENVIRONMENT_CONNECTION_NAME, type ProviderService } from "../providers/service.ts";
import { defaultConnection } from "../providers/workspace-model.ts";
import type { Signals } from "../cluster/signals.ts";
import {
  CATEGORIES,
  SEVERITIES,
  reportSchema,
  reviewBudgetSchema,
  reviewScopeSchema,
  reviewSettingsSchema,
  severityRank,
  type Report,
  type ReviewBudget,
  type ReviewScope,
  type ReviewSettings,
  type Severity,
} from "./report/schema.ts";
import { parseTrace } from "../shared/findings.ts";
import { reviewRoom } from "../shared/rooms.ts";
import type { SteeringState } from "../shared/steering.ts";
import type { ShareGrant } from "../shares/service.ts";
import { HIDDEN_FROM_SPECTATORS } from "../rooms/spectators.ts";
import type { Steering } from "./steering.ts";
import { teamSummary } from "./team.ts";
import { ACTIVE_REVIEW_STATUSES, isActiveReview, REVIEW_STATUSES, type ReviewStatus } from "../shared/statuses.ts";

/** The signal that stops a running review on whichever node runs it: `{ reviewId }`. */
export const CANCEL_SIGNAL = "review.cancel";

/** Why a review stopped when the process (or worker) running it did. */
export const STOPPED_REASONS = {
  restart: "Interrupted by a server restart. Re-run the review.",
  pausedRestart: "The server restarted while this review was paused; it starts again from the beginning when resumed.",
  worker:
    "The worker running this review stopped before it finished (its process ended). A model conversation cannot be resumed, and running it again would spend the budget twice: re-run the review.",
  pausedWorker:
    "The worker running this review stopped while it was paused; it starts again from the beginning when resumed.",
  staticWorker: "The worker running this review stopped before it finished; another worker runs it again.",
  abandoned:
    "Two workers stopped while running this review (their processes ended), so it was given up. Re-run the review.",
} as const;

export const startReviewInput = z.object({
  projectUid: z.uuid(),
  engine: z.enum(["static", "agent"]),
  scope: reviewScopeSchema.default({ kind: "project" }),
  /** A workspace prompt; the workspace default when omitted. Ignored by the static engine. */
  promptUid: z.uuid().optional(),
  /** A workspace provider connection; the server's environment default when null/omitted. */
  connectionUid: z.uuid().nullable().optional(),
  model: z.string().trim().min(1).max(200).optional(),
  budget: reviewBudgetSchema.partial().optional(),
  settings: reviewSettingsSchema.partial().optional(),
});

export const listReviewsInput = z.object({
  workspaceId: z.string().min(1),
  projectUid: z.uuid().optional(),
  status: z.enum(REVIEW_STATUSES).optional(),
  limit: z.number().int().min(1).max(100).default(20),
  /** The uid of the last review of the previous page. */
  cursor: z.uuid().optional(),
});

export const findingsInput = z.object({
  reviewUid: z.uuid(),
  severity: z.enum(SEVERITIES).optional(),
  category: z.enum(CATEGORIES).optional(),
  file: z.string().max(4096).optional(),
  minConfidence: z.number().min(0).max(1).optional(),
  sort: z.enum(["severity", "file", "confidence", "category"]).default("severity"),
  limit: z.number().int().min(1).max(5000).default(5000),
});

export const dismissInput = z.object({
  reviewUid: z.uuid(),
  fingerprint: z.string().min(1).max(200),
  reason: z.string().trim().max(500).optional(),
});

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

type ReviewRow = Review & { project: { uid: string; name: string } };

/** What the review page shows of one review (`reviews.get`). */
export type ReviewDetail = ReviewView & {
  report: Omit<Report, "findings"> | null;
  files: { path: string; score: number; counts: Record<Severity, number> }[];
  /** Paused / stop asked for, and by whom (a reload shows it as it is). */
  steering: SteeringState;
};
/** What a share link's spectator sees of it (`shares.review`). */
export type SharedReviewDetail = Omit<ReviewDetail, "projectUid" | "snapshotUid" | "budget" | "settings">;
type FindingFilters = Omit<z.infer<typeof findingsInput>, "reviewUid">;

/** One collator for every comparison (`localeCompare` looks one up per call: slow over thousands of findings). */
const collate = new Intl.Collator().compare;

export function createReviewService(deps: {
  db: Db;
  queue: JobQueue;
  events: EventBus;
  log: Logger;
  providers: ProviderService;
  steering: Pick<Steering, "stateOf">;
  signals: Signals;
}) {
  const { db, queue, events, signals } = deps;
  /** Running reviews' cancel switches (this process only; see job.ts). */
  const running = new Map<string, AbortController>();
  // A cancel asked for on another node: stop the run if it is here.
  signals.subscribe(CANCEL_SIGNAL, ({ reviewId }) => {
    if (typeof reviewId === "string") running.get(reviewId)?.abort(new Error("Cancelled by a user."));
  });

  async function snapshotUid(id: string): Promise<string | null> {
    return (await db.snapshot.findUnique({ where: { id }, select: { uid: true } }))?.uid ?? null;
  }

  async function view(r: ReviewRow): Promise<ReviewView> {
    return {
      uid: r.uid,
      projectUid: r.project.uid,
      projectName: r.project.name,
      snapshotUid: await snapshotUid(r.snapshotId),
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

  async function load(uid: string): Promise<ReviewRow> {
    const r = await db.review.findUnique({
      where: { uid },
      include: { project: { select: { uid: true, name: true } } },
    });
    if (!r) throw notFound(`No review with id ${uid}. It may have been deleted.`);
    return r;
  }

  async function loadFor(actor: Actor, uid: string, role: "viewer" | "member") {
    const r = await load(uid);
    await requireRole(db, actor, r.workspaceId, role);
    return r;
  }

  async function detail(r: ReviewRow): Promise<ReviewDetail> {
    const report = r.report ? reportSchema.parse(JSON.parse(r.report)) : null;
    const files = await db.reviewFile.findMany({
      where: { reviewId: r.id },
      orderBy: [{ score: "asc" }, { path: "asc" }],
    });
    const { findings: _f, ...reportRest } = report ?? ({ findings: [] } as unknown as Report);
    return {
      ...(await view(r)),
      report: report ? reportRest : null,
      files: files.map((f) => ({
        path: f.path,
        score: f.score,
        counts: { critical: f.critical, high: f.high, medium: f.medium, low: f.low, info: f.info },
      })),
      steering: await deps.steering.stateOf(r.id),
    };
  }

  async function findingRows(r: ReviewRow, input: FindingFilters) {
    const [rows, dismissed] = await Promise.all([
      db.reviewFinding.findMany({
        where: {
          reviewId: r.id,
          severity: input.severity,
          category: input.category,
          file: input.file,
          confidence: input.minConfidence === undefined ? undefined : { gte: input.minConfidence },
        },
        take: input.limit,
      }),
      db.findingDismissal.findMany({ where: { projectId: r.projectId }, select: { fingerprint: true } }),
    ]);
    const gone = new Set(dismissed.map((d) => d.fingerprint));
    const team = await teamSummary(db, r.id, r.uid);
    const resolvers = await db.user.findMany({
      where: { id: { in: [...new Set(rows.flatMap((f) => (f.resolvedById ? [f.resolvedById] : [])))] } },
      select: { id: true, name: true },
    });
    const resolverName = new Map(resolvers.map((u) => [u.id, u.name]));
    const order: Record<typeof input.sort, (a: (typeof rows)[number], b: (typeof rows)[number]) => number> = {
      severity: (a, b) =>
        severityRank(a.severity as Severity) - severityRank(b.severity as Severity) ||
        b.confidence - a.confidence ||
        collate(a.file, b.file) ||
        a.startLine - b.startLine,
      file: (a, b) => collate(a.file, b.file) || a.startLine - b.startLine,
      confidence: (a, b) =>
        b.confidence - a.confidence || severityRank(a.severity as Severity) - severityRank(b.severity as Severity),
      category: (a, b) =>
        collate(a.category, b.category) || severityRank(a.severity as Severity) - severityRank(b.severity as Severity),
    };
    return rows.sort(order[input.sort]).map(({ id: _id, reviewId: _r, projectId: _p, resolvedById, trace, ...f }) => ({
      ...f,
      trace: parseTrace(trace),
      resolvedAt: f.resolvedAt?.toISOString() ?? null,
      resolvedBy: resolvedById ? (resolverName.get(resolvedById) ?? "A former member") : null,
      dismissed: gone.has(f.fingerprint),
      votes: team.get(f.fingerprint)?.votes ?? [],
      threadCount: team.get(f.fingerprint)?.threadCount ?? 0,
    }));
  }

  async function publishStatus(r: Pick<Review, "uid" | "status" | "statusReason">) {
    await events.publish(reviewRoom(r.uid), {
      type: "review_status",
      payload: { status: r.status as ReviewStatus, reason: r.statusReason },
    });
  }

  /** Resolves what the review will run with, refusing early what could never run. */
  /**
   * Resolves what the review will run with, refusing early what could never run. No connection
   * named: the workspace's default (Settings marks it); null: the server's environment default.
   */
  async function resolveModel(workspaceId: string, input: z.infer<typeof startReviewInput>) {
    if (input.engine === "static") return { provider: null, model: null, connectionUid: null, connectionName: null };
    const connection =
      input.connectionUid === undefined
        ? await defaultConnection(db, workspaceId)
        : input.connectionUid === null
          ? null
          : await db.providerConnection.findUnique({ where: { uid: input.connectionUid } });
    const connectionUid = input.connectionUid === undefined ? (connection?.uid ?? null) : input.connectionUid;
    const resolved = await deps.providers.resolveForJob(workspaceId, connectionUid, input.model);
    return {
      provider: resolved.provider,
      model: resolved.model,
      connectionUid,
      connectionName: connection?.name ?? ENVIRONMENT_CONNECTION_NAME,
    };
  }

  /** actor null: started by a forge's webhook for a pull request (server/forges checked the installation). */
  async function create(
    actor: NonNullable<Actor> | null,
    input: z.infer<typeof startReviewInput>,
    uid: string = crypto.randomUUID(),
    /** A repository's own review instructions (server/forges/guidance.ts), added to the prompt. */
    instructions: string | null = null,
  ): Promise<ReviewView> {
    const project = await db.project.findUnique({ where: { uid: input.projectUid } });
    if (!project) throw notFound(`No project with id ${input.projectUid}. It may have been deleted.`);
    if (actor) await requireRole(db, actor, project.workspaceId, "member");
    if (!project.currentSnapshotId)
      throw invalid("This project has no imported code yet. Import a folder, a zip or a git repository first.");
    const snapshot = await db.snapshot.findUnique({ where: { id: project.currentSnapshotId } });
    if (snapshot?.status !== "ready")
      throw invalid("The project's code is still being imported; start the review once the import is ready.");

    let [promptName, promptContent] = [null as string | null, null as string | null];
    if (input.engine === "agent") {
      const prompt = input.promptUid
        ? await db.prompt.findUnique({ where: { uid: input.promptUid } })
        : await db.prompt.findFirst({ where: { workspaceId: project.workspaceId, isDefault: true } });
      if (input.promptUid && (!prompt || prompt.workspaceId !== project.workspaceId))
        throw notFound("That review prompt does not exist in this workspace.");
      if (!prompt)
        throw invalid(
          "This workspace has no default review prompt. Pick a prompt, or mark one as the default on the Prompts page.",
        );
      promptName = prompt.name;
      promptContent = instructions ? `${prompt.content}\n\n${instructions}` : prompt.content;
    }
    const { provider, model, connectionUid, connectionName } = await resolveModel(project.workspaceId, input);
    const budget = reviewBudgetSchema.parse(input.budget ?? {});
    const settings = reviewSettingsSchema.parse(input.settings ?? {});

    const review = await db.review.create({
      data: {
        uid,
        workspaceId: project.workspaceId,
        projectId: project.id,
        snapshotId: snapshot.id,
        createdById: actor?.userId ?? null,
        engine: input.engine,
        status: "queued",
        scope: JSON.stringify(input.scope),
        promptName,
        promptContent,
        provider,
        model,
        connectionUid,
        connectionName,
        budget: JSON.stringify(budget),
        settings: JSON.stringify(settings),
      },
      include: { project: { select: { uid: true, name: true } } },
    });
    await publishStatus(review);
    await queue.enqueue("review", { reviewId: review.id });
    return view(review);
  }

  /** Paused by a teammate when its run was cut off: queued again, still paused; starts over when resumed. */
  async function requeuePaused(r: Review, statusReason: string) {
    await db.review.update({ where: { id: r.id }, data: { status: "queued", statusReason } });
    await db.reviewSteer.updateMany({ where: { reviewId: r.id, kind: "hint" }, data: { deliveredAt: null } });
    await publishStatus({ uid: r.uid, status: "queued", statusReason });
  }

  /** Fails a review that is still going; false when it had ended meanwhile. */
  async function failActive(r: Pick<Review, "id" | "uid">, statusReason: string): Promise<boolean> {
    const { count } = await db.review.updateMany({
      where: { id: r.id, status: { in: [...ACTIVE_REVIEW_STATUSES] } },
      data: { status: "failed", statusReason, finishedAt: new Date() },
    });
    if (count) await publishStatus({ uid: r.uid, status: "failed", statusReason });
    return count > 0;
  }

  return {
    running,
    view,

    start(actor: Actor, input: z.infer<typeof startReviewInput>) {
      return create(requireUser(actor), input);
    },

    /**
     * A pull request's review, started by its forge's webhook: no user, the installation's workspace.
     * The uid is the caller's, so the PR can name its review before the review can end.
     */
    startForPullRequest(uid: string, input: z.infer<typeof startReviewInput>, instructions: string | null = null) {
      return create(null, input, uid, instructions);
    },

    async list(
      actor: Actor,
      input: z.infer<typeof listReviewsInput>,
    ): Promise<{ items: ReviewView[]; nextCursor: string | null }> {
      await requireRole(db, actor, input.workspaceId, "viewer");
      let projectId: string | undefined;
      if (input.projectUid) {
        const p = await db.project.findUnique({
          where: { uid: input.projectUid },
          select: { id: true, workspaceId: true },
        });
        if (!p || p.workspaceId !== input.workspaceId)
          throw notFound(`No project with id ${input.projectUid} in this workspace.`);
        projectId = p.id;
      }
      const rows = await db.review.findMany({
        where: { workspaceId: input.workspaceId, projectId, status: input.status },
        include: { project: { select: { uid: true, name: true } } },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: input.limit + 1,
        ...(input.cursor ? { cursor: { uid: input.cursor }, skip: 1 } : {}),
      });
      const page = rows.slice(0, input.limit);
      return {
        items: await Promise.all(page.map(view)),
        nextCursor: rows.length > input.limit ? page[page.length - 1]!.uid : null,
      };
    },

    async get(actor: Actor, uid: string): Promise<ReviewDetail> {
      return detail(await loadFor(actor, uid, "viewer"));
    },

    async findings(actor: Actor, input: z.infer<typeof findingsInput>) {
      return findingRows(await loadFor(actor, input.reviewUid, "viewer"), input);
    },

    /**
     * The review a share link opens, for its spectators: the link is the right (server/shares checked
     * it; no workspace role here). What the review page shows, without the ids of its project and
     * snapshot or its budget and settings: nothing that leads further into the workspace.
     */
    shared(grant: ShareGrant) {
      return {
        async get(): Promise<SharedReviewDetail> {
          const {
            projectUid: _p,
            snapshotUid: _s,
            budget: _b,
            settings: _st,
            ...shown
          } = await detail(await load(grant.reviewUid));
          return shown;
        },
        findings: async () =>
          findingRows(await load(grant.reviewUid), findingsInput.parse({ reviewUid: grant.reviewUid })),
        events: (afterSeq: number) =>
          events.history(reviewRoom(grant.reviewUid), afterSeq, undefined, { omitTypes: HIDDEN_FROM_SPECTATORS }),
      };
    },

    async cancel(actor: Actor, uid: string): Promise<ReviewView> {
      const r = await loadFor(actor, uid, "member");
      if (!isActiveReview(r.status))
        throw conflict(
          `This review already ${r.status === "completed" ? "completed" : `is ${r.status}`}; there is nothing to cancel.`,
        );
      const controller = running.get(r.id);
      if (controller) {
        controller.abort(new Error("Cancelled by a user."));
      } else if (r.status === "running") {
        // Running on another node (a shared queue): the row decides — the job's own save and its
        // next turn see it — and the node running it is told to stop now.
        const statusReason = "Cancelled by a user.";
        const { count } = await db.review.updateMany({
          where: { id: r.id, status: "running" },
          data: { status: "cancelled", statusReason, finishedAt: new Date() },
        });
        if (count) await publishStatus({ uid: r.uid, status: "cancelled", statusReason });
        await signals.publish(CANCEL_SIGNAL, { reviewId: r.id });
      } else {
        // Queued, not started: the job sees the status and skips it.
        await db.review.updateMany({
          where: { id: r.id, status: { in: [...ACTIVE_REVIEW_STATUSES] } },
          data: { status: "cancelled", statusReason: "Cancelled before it started.", finishedAt: new Date() },
        });
        await publishStatus({ uid: r.uid, status: "cancelled", statusReason: "Cancelled before it started." });
      }
      return view(await load(uid));
    },

    async rerun(actor: Actor, uid: string): Promise<ReviewView> {
      const r = await loadFor(actor, uid, "member");
      const scope = JSON.parse(r.scope) as ReviewScope;
      const input = startReviewInput.parse({
        projectUid: r.project.uid,
        engine: r.engine,
        scope,
        connectionUid: r.connectionUid,
        model: r.model ?? undefined,
        budget: JSON.parse(r.budget),
        settings: JSON.parse(r.settings),
      });
      const created = await create(actor!, input);
      // Keep the original prompt text even if the prompt was edited or deleted since.
      if (r.engine === "agent")
        await db.review.update({
          where: { uid: created.uid },
          data: { promptName: r.promptName, promptContent: r.promptContent },
        });
      return { ...created, promptName: r.promptName };
    },

    async remove(actor: Actor, uid: string): Promise<void> {
      const r = await loadFor(actor, uid, "member");
      if (isActiveReview(r.status)) throw conflict("This review is still running. Cancel it first, then delete it.");
      await db.review.delete({ where: { id: r.id } }); // files and findings cascade
      await events.deleteRoom(reviewRoom(r.uid));
    },

    async dismiss(actor: Actor, input: z.infer<typeof dismissInput>): Promise<void> {
      const r = await loadFor(actor, input.reviewUid, "member");
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
    },

    async undismiss(actor: Actor, input: z.infer<typeof dismissInput>): Promise<void> {
      const r = await loadFor(actor, input.reviewUid, "member");
      await db.findingDismissal.deleteMany({ where: { projectId: r.projectId, fingerprint: input.fingerprint } });
      await events.publish(reviewRoom(r.uid), {
        type: "finding_restored",
        payload: { fingerprint: input.fingerprint },
      });
    },

    /** Findings by severity across the project's completed reviews, oldest first (the trend chart). */
    async trend(actor: Actor, projectUid: string) {
      const project = await db.project.findUnique({ where: { uid: projectUid } });
      if (!project) throw notFound(`No project with id ${projectUid}.`);
      await requireRole(db, actor, project.workspaceId, "viewer");
      const reviews = await db.review.findMany({
        where: { projectId: project.id, status: "completed" },
        orderBy: { finishedAt: "asc" },
        take: 200,
        select: { id: true, uid: true, engine: true, finishedAt: true, scoreOverall: true },
      });
      const counts = await db.reviewFinding.groupBy({
        by: ["reviewId", "severity"],
        where: { reviewId: { in: reviews.map((r) => r.id) } },
        _count: { _all: true },
      });
      return reviews.map((r) => {
        const bySeverity = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
        for (const c of counts) if (c.reviewId === r.id) bySeverity[c.severity as Severity] = c._count._all;
        return { uid: r.uid, engine: r.engine, finishedAt: r.finishedAt, score: r.scoreOverall, ...bySeverity };
      });
    },

    async events(actor: Actor, uid: string, afterSeq = 0) {
      const r = await loadFor(actor, uid, "viewer");
      return events.history(reviewRoom(r.uid), afterSeq);
    },

    /** On start (in-process queue only): see the restart policy at the top of this file. */
    async recoverInterrupted(): Promise<{ failed: number; requeued: number }> {
      const stuck = await db.review.findMany({
        where: { status: { in: [...ACTIVE_REVIEW_STATUSES] } },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      });
      let failed = 0;
      let requeued = 0;
      for (const r of stuck) {
        const steering = r.status === "running" ? await deps.steering.stateOf(r.id) : null;
        if (steering?.paused && !steering.stopRequested) {
          // Its conversation could not be kept, so when it is resumed it starts from the beginning
          // (with every hint given so far unsent).
          await requeuePaused(r, STOPPED_REASONS.pausedRestart);
          await queue.enqueue("review", { reviewId: r.id });
          requeued++;
        } else if (r.status === "running") {
          const statusReason = STOPPED_REASONS.restart;
          await db.review.update({
            where: { id: r.id },
            data: { status: "failed", statusReason, finishedAt: new Date() },
          });
          await publishStatus({ uid: r.uid, status: "failed", statusReason });
          failed++;
        } else {
          await db.review.update({ where: { id: r.id }, data: { status: "queued" } });
          await queue.enqueue("review", { reviewId: r.id });
          requeued++;
        }
      }
      return { failed, requeued };
    },

    /**
     * A shared queue handed this review's job to another worker after the one running it stopped:
     * the same policy as a restart (top of this file). True when the job should run it now.
     */
    async takeOver(reviewId: string): Promise<boolean> {
      const r = await db.review.findUnique({ where: { id: reviewId } });
      if (!r || r.status !== "running") return r !== null && isActiveReview(r.status);
      const steering = await deps.steering.stateOf(r.id);
      if (r.engine === "agent" && steering.paused && !steering.stopRequested) {
        await requeuePaused(r, STOPPED_REASONS.pausedWorker);
        return true;
      }
      if (r.engine !== "agent") {
        // No model, no budget: running it again costs a few seconds and gives the same report.
        const statusReason = STOPPED_REASONS.staticWorker;
        await db.review.update({ where: { id: r.id }, data: { status: "queued", statusReason } });
        await publishStatus({ uid: r.uid, status: "queued", statusReason });
        return true;
      }
      await failActive(r, STOPPED_REASONS.worker);
      return false;
    },

    /** The shared queue gave the job up (its workers stopped twice): the review fails, saying so. */
    async abandoned(reviewId: string): Promise<void> {
      const r = await db.review.findUnique({ where: { id: reviewId }, select: { id: true, uid: true } });
      if (r) await failActive(r, STOPPED_REASONS.abandoned);
    },
  };
}

export type ReviewService = ReturnType<typeof createReviewService>;
