/** Stopping web runs: a cancel (wherever the run runs), and the runs a restart cut off. */
import type { Actor } from "../../auth/access.ts";
import { conflict } from "../../errors.ts";
import { CANCEL_RUN_SIGNAL } from "./run-job.ts";
import { loadRun, type PipelineDeps } from "./rows.ts";
import { sweepRunDirs } from "./run-dir.ts";

export async function cancelRun(d: PipelineDeps, actor: Actor, runUid: string) {
  const row = await loadRun(d.db, actor, runUid, "member");
  if (row.status !== "running") throw conflict(`This run is ${row.status}: only a running run can be cancelled.`);
  if (!d.runs.cancel(row.uid)) {
    // Not running in this process: on a worker (a shared queue: it is told to stop), or not any
    // more (a restart). Marked so it stops showing as running.
    if (d.signals) await d.signals.publish(CANCEL_RUN_SIGNAL, { uid: row.uid });
    await d.db.pipelineRun.update({
      where: { uid: row.uid },
      data: { status: "cancelled", error: "Cancelled.", finishedAt: new Date() },
    });
  }
  return { ok: true as const };
}

/**
 * Runs cut off by the last shutdown: they cannot resume, so they are marked failed, and the folders
 * they left are removed.
 */
export async function recoverInterrupted({ db, runs, root }: PipelineDeps): Promise<number> {
  const where = { status: "running", workspaceId: { not: null } };
  // Folders of runs that ended with the last process (none runs here yet); the memory files stay.
  sweepRunDirs(root, new Set(runs.runningUids()));
  // Read first: an UPDATE takes SQLite's write lock even when nothing matches (see ask's sweep).
  if (!(await db.pipelineRun.findFirst({ where, select: { id: true } }))) return 0;
  const r = await db.pipelineRun.updateMany({
    where,
    data: {
      status: "failed",
      error: "Interrupted: Argus restarted while the run was in progress.",
      finishedAt: new Date(),
    },
  });
  return r.count;
}
