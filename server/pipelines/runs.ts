/**
 * Pipeline runs as records: a `pipeline_run` row per run (who, pipeline and its version hash,
 * parameters, status, timings, result summary, memory file) and the run's events published to room
 * `run:<uid>` on the event bus, so a run can be watched live and replayed later (`bus.history`).
 *
 * Room events are the spec §4.4 events as `{ type, payload }` (server/shared/room-events.ts), except
 * `token`'s payload: `{text, step, is_final}` (the bus coalesces deltas by `text`; spec's `content` is
 * that text).
 *
 * This file only composes the parts: run-scope.ts (what a run may do and use), run-row.ts (its row and
 * record), run-execute.ts (running it to its end); the input and dependencies are in run-input.ts.
 */
import { notFound } from "../errors.ts";
import { runRoom } from "../shared/rooms.ts";
import { executeRun, type RunBooks } from "./run-execute.ts";
import type { RunServiceDeps, StartRunInput } from "./run-input.ts";
import { insertRun, toRecord, type RunRecord } from "./run-row.ts";
import { runScope } from "./run-scope.ts";

export { RUN_INTERRUPTED } from "./run-execute.ts";
export type { RunServiceDeps, StartRunInput } from "./run-input.ts";
export type { RunRecord, RunStatus } from "./run-row.ts";

/** How long shutdown lets running pipeline runs finish before it stops them. */
export const RUN_SHUTDOWN_GRACE_MS = 10_000;

export function createRunService(deps: RunServiceDeps) {
  const { db, events } = deps;
  const books: RunBooks = { running: new Map(), inFlight: new Set(), interrupted: new Set() };
  const { running, inFlight, interrupted } = books;

  /** Starts a run; resolves once its row exists. `done` settles with the final record (never rejects). */
  async function start(input: StartRunInput): Promise<{ uid: string; done: Promise<RunRecord> }> {
    const { createdById, engine } = await runScope(deps, input);
    const uid = await insertRun(db, input, createdById);
    return { uid, done: executeRun(deps, books, uid, input, engine) };
  }

  return {
    start,
    /**
     * A run to be run elsewhere (a worker, from a shared queue): its rights checked and its row
     * written now; `runQueued` runs it (checking the starter's rights again, as they are then).
     */
    async create(input: StartRunInput): Promise<string> {
      return insertRun(db, input, (await runScope(deps, input)).createdById);
    },
    async runQueued(uid: string, input: StartRunInput): Promise<RunRecord> {
      return executeRun(deps, books, uid, input, (await runScope(deps, input)).engine);
    },
    /** Starts a run and waits for it (the CLI's `--record`). */
    async run(input: StartRunInput): Promise<RunRecord> {
      return (await start(input)).done;
    },
    async get(uid: string): Promise<RunRecord> {
      const row = await db.pipelineRun.findUnique({ where: { uid } });
      if (!row) throw notFound(`No pipeline run ${uid}.`);
      return toRecord(row);
    },
    async list(filter: { workspaceId?: string; limit?: number } = {}): Promise<RunRecord[]> {
      const rows = await db.pipelineRun.findMany({
        where: filter.workspaceId ? { workspaceId: filter.workspaceId } : {},
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: filter.limit ?? 50,
      });
      return rows.map(toRecord);
    },
    /** The runs running in this process. */
    runningUids: (): string[] => [...running.keys()],
    /** Asks a running run to stop at the next step; false when it is not running here. */
    cancel(uid: string): boolean {
      const c = running.get(uid);
      c?.abort();
      return c !== undefined;
    },
    /**
     * Shutdown: runs still going get `graceMs` to finish, then are stopped (recorded as interrupted);
     * resolves when every run's end is recorded, so the database can close after it.
     */
    async shutdown(graceMs = RUN_SHUTDOWN_GRACE_MS): Promise<{ stopped: number }> {
      const all = () => Promise.allSettled([...inFlight]);
      let timer: NodeJS.Timeout | undefined;
      const inTime = await Promise.race([
        all().then(() => true),
        new Promise<boolean>((r) => (timer = setTimeout(() => r(false), graceMs))),
      ]);
      clearTimeout(timer);
      if (inTime) return { stopped: 0 };
      let stopped = 0;
      for (const [uid, c] of running) {
        interrupted.add(uid);
        c.abort();
        stopped++;
      }
      await all();
      return { stopped };
    },
    /** The run's events so far (replay), oldest first. */
    history: (uid: string, afterSeq?: number) => events.history(runRoom(uid), afterSeq),
  };
}

export type RunService = ReturnType<typeof createRunService>;
