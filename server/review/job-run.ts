/**
 * One started review's run: what it was started with, read from its row and its snapshot, handed to
 * executeReview (run.ts) with the steering hooks, its events published to the room as they come and
 * its progress written to the row.
 */
import type { Db, Review } from "../db/client.ts";
import { searchIndexName, snapshotDirs } from "../snapshots/storage.ts";
import type { SnapshotSummary } from "../snapshots/import.ts";
import { reviewableFiles } from "../codebase/symbols/index.ts";
import { codeSearchFor, staticInputFromRow, StopNow, type AgentEvent, type BeforeTurn } from "../agent/index.ts";
import { foldProgress, NO_PROGRESS, progressFraction } from "../shared/review-progress.ts";
import { toEnvelope } from "../shared/event-union.ts";
import type { RoomName } from "../shared/rooms.ts";
import { reviewBudgetSchema, reviewScopeSchema, reviewSettingsSchema } from "./report/schema.ts";
import { executeReview, type ExecuteReviewResult } from "./run.ts";
import { falsePositiveMemory } from "./false-positive-memory.ts";
import type { ReviewJobDeps } from "./job-deps.ts";

/** What a run gives its ending: the review's report and usage, and the agent loop's own end. */
export interface ReviewRunOutcome {
  result: ExecuteReviewResult;
  /** The loop's "done" (absent for the static engine, which has no loop). */
  agentDone: Extract<AgentEvent, { type: "done" }> | undefined;
}

export async function runStartedReview(
  deps: ReviewJobDeps,
  review: Review,
  room: RoomName,
  controller: AbortController,
): Promise<ReviewRunOutcome> {
  const { db, events, log } = deps;
  const snapshot = await db.snapshot.findUniqueOrThrow({ where: { id: review.snapshotId } });
  const dirs = snapshotDirs(deps.config.dataDir, snapshot.projectId, snapshot.id);
  const summary = snapshot.summary ? (JSON.parse(snapshot.summary) as SnapshotSummary) : null;
  const files = reviewableFiles(dirs.symbols);
  const [staticFindings, dismissals] = await Promise.all([
    db.staticFinding.findMany({ where: { snapshotId: snapshot.id } }),
    falsePositiveMemory(db, review.projectId),
  ]);
  const agent =
    review.engine === "agent"
      ? {
          llm: (await deps.providers.resolveForJob(review.workspaceId, review.connectionUid, review.model ?? undefined))
            .options,
          prompt: review.promptContent ?? "",
        }
      : undefined;

  const steer = stopAtOnce(deps.steering.beforeTurnFor(review, controller.signal), controller);
  const budget = reviewBudgetSchema.parse(JSON.parse(review.budget));
  const progress = progressWriter(db, review.id, budget.maxIterations);
  let agentDone: ReviewRunOutcome["agentDone"];
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
    dismissed: dismissals,
    agent,
    searchCode: codeSearchFor(deps.config, deps.searchIndexes, searchIndexName(snapshot.id)),
    signal: controller.signal,
    beforeTurn: deps.watchStatus ? watchingStatus(db, steer, controller, review.id) : steer,
    emit: (event) => {
      // The loop's own "report" and "done" end the model conversation; the review's come after
      // the checks and the save (job-outcome.ts), carrying the loop's stop reason.
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
  return { result, agentDone };
}

/** The steering hook, after a look at the row: a review no longer running is stopped here. */
function watchingStatus(db: Db, steer: BeforeTurn, controller: AbortController, reviewId: string): BeforeTurn {
  return async (state, phase) => {
    const now = await db.review.findUnique({ where: { id: reviewId }, select: { status: true } });
    if (now?.status !== "running") {
      controller.abort(new Error("Cancelled by a user."));
      return;
    }
    return steer(state, phase);
  };
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
