/**
 * Every web pipeline run is a "pipeline.run" job (server/jobs/kinds.ts): the web request records the
 * run (status running) and prepares its directory (on the shared volume when several nodes run);
 * the job runs it — in this process with the in-process queue, on a worker with BullMQ — and is its
 * one finishing path: the folder tidied (run-dir.ts: the memory file is kept, the rest removed), or
 * the run failed with a reason users see in its row and room. The job carries no secret in clear:
 * API keys given as overrides travel sealed (AUTH_SECRET, the same on every node).
 *
 * A run whose worker died is failed with the reason, not run again: its model calls cost money and
 * its memory file would mix two runs. Cancel reaches another node's run through a signal (server/cluster).
 */
import type { Db } from "../../db/client.ts";
import type { EventBus } from "../../events/bus.ts";
import type { JobMap } from "../../jobs/queue.ts";
import type { JobRegistration } from "../../jobs/registry.ts";
import type { Logger } from "../../logger.ts";
import type { Signals } from "../../cluster/signals.ts";
import { runRoom } from "../../shared/rooms.ts";
import { publicError } from "../../errors-public.ts";
import type { AliasParameters } from "../dsl/params.ts";
import type { RunService } from "../runs.ts";
import { finishRunDir, removeRunDir } from "./run-dir.ts";

/** Stops a run on whichever node runs it: `{ uid }`. */
export const CANCEL_RUN_SIGNAL = "pipeline.cancel";

export type PipelineRunJob = JobMap["pipeline.run"];

export const RUN_STOPPED = {
  worker: "The worker running this pipeline stopped before it finished (its process ended). Run it again.",
  abandoned:
    "Two workers stopped while running this pipeline (their processes ended), so it was given up. Run it again.",
} as const;

export function createRunJob(deps: {
  db: Db;
  events: EventBus;
  /** Given (several nodes), a cancel published by another node stops the run here. */
  signals?: Signals;
  runs: RunService;
  box: { open(sealed: string): string };
  log: Logger;
  /** The runs' folders (DATA_DIR/pipeline-runs, shared by every node). */
  root: string;
}): JobRegistration<"pipeline.run"> {
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

  deps.signals?.subscribe(CANCEL_RUN_SIGNAL, ({ uid }) => {
    if (typeof uid === "string") runs.cancel(uid);
  });

  return {
    handler: async (job, ctx) => {
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
    options: { concurrency: 2, abandoned: (job) => fail(job.uid, RUN_STOPPED.abandoned) },
  };
}
