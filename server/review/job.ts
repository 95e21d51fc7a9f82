/**
 * The review job: loads what the review was started with, runs it (run.ts), and records the outcome
 * — report, findings, per-file rollup — in one transaction, so a review is either completed with
 * everything or failed/cancelled with nothing half-written. Every step is an event in the review's room.
 */
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import type { EventBus } from "../events/bus.ts";
import type { Logger } from "../logger.ts";
import type { ProviderService } from "../providers/service.ts";
import type { IndexCache } from "../retrieval/store/index.ts";
import { isUserFacing } from "../errors.ts";
import { publicError } from "../errors-public.ts";
import type { SnapshotSummary } from "../snapshots/import.ts";
import { searchIndexName, snapshotDirs } from "../snapshots/storage.ts";
import { reviewableFiles } from "../codebase/symbols/index.ts";
import { reviewBudgetSchema, reviewScopeSchema, reviewSettingsSchema, type Report } from "./report/schema.ts";
import { executeReview } from "./run.ts";
import {
  codeSearchFor,
  isStopNow,
  staticInputFromRow,
  StopNow,
  type AgentEvent,
  type BeforeTurn,
} from "../agent/index.ts";
import { foldProgress, NO_PROGRESS, progressFraction } from "../shared/review-progress.ts";
import { isActiveReview } from "../shared/statuses.ts";
import { toEnvelope } from "../shared/event-union.ts";
import { traceJson } from "../shared/findings.ts";
import { reviewRoom } from "../shared/rooms.ts";
import type { Steering } from "./steering.ts";
import type { JobContext, JobMap } from "../jobs/queue.ts";
import type { Notifier } from "../notifications/service.ts";

export interface ReviewJobDeps {
  db: Db;
  config: Config;
  events: EventBus;
  log: Logger;
  providers: ProviderService;
  /** The service's map of running reviews' cancel switches. */
  running: Map<string, AbortController>;
  /** Open search indexes shared with the search boxes. */
  searchIndexes: IndexCache;
  steering: Steering;
  /**
   * The job was taken over from a worker that stopped (a shared queue): the service's policy decides
   * whether it runs again (true) or has ended (false, the review says why).
   */
  takeOver?: (reviewId: string) => Promise<boolean>;
  /**
   * Look at the review's row before each model turn and stop when it is no longer running (a cancel
   * recorded by another node whose signal did not arrive). Only needed with a shared queue.
   */
  watchStatus?: boolean;
  /** Tells the review's starter when it finished or failed. */
  notify: Pick<Notifier, "reviewEnded">;
}

export function createReviewJob(deps: ReviewJobDeps) {
  const { db, events, log } = deps;

  return async function runReviewJob({ reviewId }: JobMap["review"], ctx?: JobContext): Promise<void> {
    if (ctx?.takeover && deps.takeOver && !(await deps.takeOver(reviewId))) return;
    const review = await db.review.findUnique({ where: { id: reviewId } });
    if (!review || !isActiveReview(review.status)) return; // cancelled or deleted while queued
    const room = reviewRoom(review.uid);
    // The cancel switch exists before the review shows as running, so a cancel never finds a
    // running review without one (it would only flip the status while the model kept working).
    const controller = new AbortController();
    deps.running.set(review.id, controller);
    const unwatchStop = deps.steering.watchStop(review.id, (message) => controller.abort(new StopNow(message)));
    const started = await db.review.updateMany({
      where: { id: review.id, status: { in: ["pending", "queued"] } },
      data: { status: "running", startedAt: new Date(), progress: 0.05, statusReason: null },
    });
    if (started.count === 0) {
      deps.running.delete(review.id); // cancelled between the read and now
      unwatchStop();
      return;
    }
    await events.publish(room, { type: "review_status", payload: { status: "running" } });

    try {
      const snapshot = await db.snapshot.findUniqueOrThrow({ where: { id: review.snapshotId } });
      const dirs = snapshotDirs(deps.config.dataDir, snapshot.projectId, snapshot.id);
      const summary = snapshot.summary ? (JSON.parse(snapshot.summary) as SnapshotSummary) : null;
      const files = reviewableFiles(dirs.symbols);
      const [staticFindings, dismissals] = await Promise.all([
        db.staticFinding.findMany({ where: { snapshotId: snapshot.id } }),
        db.findingDismissal.findMany({ where: { projectId: review.projectId }, select: { fingerprint: true } }),
      ]);
      const agent =
        review.engine === "agent"
          ? {
              llm: (
                await deps.providers.resolveForJob(review.workspaceId, review.connectionUid, review.model ?? undefined)
              ).options,
              prompt: review.promptContent ?? "",
            }
          : undefined;

      const steer = stopAtOnce(deps.steering.beforeTurnFor(review, controller.signal), controller);
      const budget = reviewBudgetSchema.parse(JSON.parse(review.budget));
      const progress = progressWriter(db, review.id, budget.maxIterations);
      let agentDone: Extract<AgentEvent, { type: "done" }> | undefined;
      const result = await executeReview({
        engine: review.engine === "agent" ? "agent" : "static",
        root: dirs.src,
        files,
        languages: summary?.languages ?? {},
        symbolsPath: dirs.symbols,
        staticFindings: staticFindings.map(staticInputFromRow),
        scope: reviewScopeSchema.parse(JSON.parse(review.scope)),
        settings: reviewSettingsSchema.parse(JSON.parse(review.settings)),
        budget,
        dismissed: dismissals.map((d) => d.fingerprint),
        agent,
        searchCode: codeSearchFor(deps.config, deps.searchIndexes, searchIndexName(snapshot.id)),
        signal: controller.signal,
        beforeTurn: deps.watchStatus ? watchingStatus(steer, controller, review.id) : steer,
        emit: (event) => {
          // The loop's own "report" and "done" end the model conversation; the review's come after
          // the checks and the save (below), carrying the loop's stop reason.
          if (event.type === "done") {
            agentDone = event;
            return;
          }
          if (event.type === "report") return;
          progress(event);
          // Not awaited (the loop does not wait for watchers); the bus keeps the room's order.
          events
            .publish(room, toEnvelope(event))
            .catch((err: unknown) => log.warn({ err, reviewId: review.id }, "review event not published"));
        },
      });
      // A Stop (StopNow) ends the run with the partial report, saved like any other.
      if (controller.signal.aborted && !isStopNow(controller.signal.reason)) throw controller.signal.reason;
      await saveReport(review.id, review.projectId, result.report, result.usage);
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
      await deps.notify.reviewEnded(
        review,
        { status: "completed", findings: result.report.findings.length },
        ended.seq,
      );
      // The loop's stop reason (the static engine has no loop: it ends by itself, in no model turns).
      const { type: _done, ...done } = agentDone ?? { type: "done", stopReason: "end_turn", iterations: 0, notes: [] };
      await events.publish(room, { type: "done", payload: { ...done, notes: result.report.notes } });
    } catch (err) {
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
      if (!cancelled) await deps.notify.reviewEnded(review, { status: "failed", reason }, ended.seq);
    } finally {
      unwatchStop();
      deps.running.delete(review.id);
    }
  };

  /** The steering hook, after a look at the row: a review no longer running is stopped here. */
  function watchingStatus(steer: BeforeTurn, controller: AbortController, reviewId: string): BeforeTurn {
    return async (state, phase) => {
      const now = await db.review.findUnique({ where: { id: reviewId }, select: { status: true } });
      if (now?.status !== "running") {
        controller.abort(new Error("Cancelled by a user."));
        return;
      }
      return steer(state, phase);
    };
  }

  async function saveReport(reviewId: string, projectId: string, report: Report, usage: unknown): Promise<void> {
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
}

/**
 * A Stop ends the run at once: the signal aborts the model request in flight (and any tool), so no
 * request and no tool runs after it. The steering hook's own stop (read between turns, in case the
 * signal was lost) ends it the same way rather than with one more model request.
 */
function stopAtOnce(steer: BeforeTurn, controller: AbortController): BeforeTurn {
  return async (state, phase) => {
    const answer = await steer(state, phase);
    if (answer && !Array.isArray(answer) && answer.stop !== undefined) {
      controller.abort(new StopNow(answer.stop));
      return;
    }
    return answer;
  };
}

/** Writes the row's progress (throttled): the static engine's own, an agent's iterations of its budget. */
function progressWriter(db: Db, reviewId: string, maxIterations: number) {
  let progress = NO_PROGRESS;
  let written = 0;
  return (event: AgentEvent | { type: "progress"; fraction: number }) => {
    progress = foldProgress(progress, toEnvelope(event));
    const fraction = event.type === "progress" ? event.fraction : progressFraction(progress, maxIterations);
    if (fraction - written < 0.02) return;
    written = fraction;
    void db.review.update({ where: { id: reviewId }, data: { progress: fraction } }).catch(() => undefined);
  };
}
