/**
 * Web pipeline runs on a shared queue (REDIS_URL): the web node records the run (status running) and
 * prepares its directory on the shared volume; a worker runs it. The job carries no secret in clear:
 * API keys given as overrides travel sealed (AUTH_SECRET, the same on every node).
 *
 * A run whose worker died is failed with the reason, not run again: its model calls cost money and
 * its memory file would mix two runs. Cancel reaches the worker through a signal (server/cluster).
 * When it ends, the worker tidies its folder as a web node does in one process (run-dir.ts: the memory
 * file is kept, the rest removed).
 * In one process (the embedded default) none of this is used: runs start in the process directly.
 */
import type { Db } from "../../db/client.ts";
import type { EventBus } from "../../events/bus.ts";
import type { JobQueue } from "../../jobs/queue.ts";
import type { Logger } from "../../logger.ts";
import type { Signals } from "../../cluster/signals.ts";
import { runRoom } from "../../shared/rooms.ts";
import { publicError } from "../../errors-public.ts";
import type { AliasParameters } from "../dsl/params.ts";
import type { RunService } from "../runs.ts";
import { finishRunDir, removeRunDir } from "./run-dir.ts";

export const PIPELINE_RUN_JOB = "pipeline.run";
/** Stops a run on whichever node runs it: `{ uid }`. */
export const CANCEL_RUN_SIGNAL = "pipeline.cancel";

export interface PipelineRunJob {
  uid: string;
  file: string;
  cwd: string;
  demo?: boolean;
  /** Where it runs and who started it: the worker checks their role again and applies the same policy. */
  workspaceId: string;
  userId: string;
  /** The overrides (API keys among them), sealed. */
  sealedOverrides?: string;
}

export const RUN_STOPPED = {
  worker: "The worker running this pipeline stopped before it finished (its process ended). Run it again.",
  abandoned:
    "Two workers stopped while running this pipeline (their processes ended), so it was given up. Run it again.",
} as const;

export function registerRunJob(deps: {
  db: Db;
  events: EventBus;
  queue: JobQueue;
  signals: Signals;
  runs: RunService;
  box: { open(sealed: string): string };
  log: Logger;
  /** The runs' folders (DATA_DIR/pipeline-runs, shared by every node). */
  root: string;
}): void {
  const { db, runs, root } = deps;

  /** Fails a run that is still going, saying why in its row and its room. */
  async function fail(uid: string, error: string) {
    removeRunDir(root, uid);
    const { count } = await db.pipelineRun.updateMany({
      where: { uid, status: "running" },
      data: { status: "failed", error, finishedAt: new Date() },
    });
    if (count) await deps.events.publish(runRoom(uid), { type: "error", payload: { message: error } });
  }

  deps.signals.subscribe(CANCEL_RUN_SIGNAL, ({ uid }) => {
    if (typeof uid === "string") runs.cancel(uid);
  });

  deps.queue.register<PipelineRunJob>(
    PIPELINE_RUN_JOB,
    async (job, ctx) => {
      const row = await db.pipelineRun.findUnique({ where: { uid: job.uid }, select: { status: true } });
      if (row?.status !== "running") return removeRunDir(root, job.uid); // cancelled or deleted while it waited
      if (ctx.takeover) return fail(job.uid, RUN_STOPPED.worker);
      const overrides = job.sealedOverrides
        ? (JSON.parse(deps.box.open(job.sealedOverrides)) as AliasParameters)
        : undefined;
      const user = await db.user.findUnique({ where: { id: job.userId }, select: { email: true, name: true } });
      await runs
        .runQueued(job.uid, {
          file: job.file,
          cwd: job.cwd,
          ...(job.demo ? { demo: true } : {}),
          ...(overrides ? { overrides } : {}),
          workspaceId: job.workspaceId,
          origin: "app",
          // A starter gone since (or no longer a member) is refused by the run service: the run fails saying so.
          actor: user ? { userId: job.userId, ...user } : null,
        })
        .then(async (record) => {
          const kept = finishRunDir(root, job.uid, record.memoryFile);
          if (kept !== record.memoryFile)
            await db.pipelineRun.update({ where: { uid: job.uid }, data: { memoryFile: kept } });
        })
        .catch((err: unknown) =>
          fail(job.uid, publicError(err, { doing: "starting the pipeline run", log: deps.log }).message),
        );
    },
    { concurrency: 2, abandoned: (job) => fail(job.uid, RUN_STOPPED.abandoned) },
  );
}
