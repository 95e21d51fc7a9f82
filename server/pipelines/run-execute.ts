/**
 * Running a recorded run's pipeline to its end: its events published to room `run:<uid>` (the
 * engine's raw error replaced by what users may see), the workspace model connection it used noted,
 * and its end written to its row: completed, failed, cancelled, or interrupted by shutdown.
 */
import path from "node:path";
import { publicError } from "../errors-public.ts";
import type { RoomEventBody } from "../events/bus.ts";
import { toEnvelope } from "../shared/event-union.ts";
import { runRoom } from "../shared/rooms.ts";
import type { PipelineEvent } from "./engine/events.ts";
import { RunCancelledError, StepError } from "./engine/execute.ts";
import { runPipeline, type RunOptions, type RunResult } from "./engine/run.ts";
import type { RunServiceDeps, StartRunInput } from "./run-input.ts";
import { outputsOf, toRecord, type RunRecord, type RunStatus } from "./run-row.ts";
import { blankSecrets } from "./workspace/parameters.ts";

export const RUN_INTERRUPTED = "Interrupted: Argus was shut down while the run was in progress. Start it again.";

/** The run service's books on the runs of this process. */
export interface RunBooks {
  /** The runs running here, each with its way to stop. */
  running: Map<string, AbortController>;
  /** Every run's `done` until it settles (shutdown waits for them before the database closes). */
  inFlight: Set<Promise<RunRecord>>;
  /** Runs stopped by shutdown: recorded as interrupted (failed), not as cancelled by someone. */
  interrupted: Set<string>;
}

/** "running step retriever.search" when a step crashed, so the sentence still says where. */
const doingFor = (err: unknown) => (err instanceof StepError ? `running step ${err.step}` : "running the pipeline");

/** Runs the pipeline of run `uid` (its row exists) to its end; settles with the final record (never rejects). */
export function executeRun(
  deps: RunServiceDeps,
  books: RunBooks,
  uid: string,
  input: StartRunInput,
  engine: Partial<RunOptions>,
): Promise<RunRecord> {
  const { db, events } = deps;
  const { running, inFlight, interrupted } = books;
  const controller = new AbortController();
  running.set(uid, controller);
  // The bus keeps a room's events in publish order (token deltas coalesce, so a delta's publish
  // settles when its frame is written: awaiting each in turn would put every delta in a frame of its
  // own); the run waits for them all before finishing.
  const published: Promise<unknown>[] = [];
  const send = (e: PipelineEvent) => {
    const event = roomEvent(e);
    published.push(events.publish(runRoom(uid), event).catch(() => undefined));
  };
  // The engine's own error event carries the raw message; the run sends what users may see (below).
  const publish = (e: PipelineEvent) => {
    if (e.type !== "error") send(e);
  };
  // The run records which workspace connection its model steps used, as soon as the first one does.
  let modelConnection: string | undefined;
  const model = engine.context?.model;
  const runEngine: Partial<RunOptions> = !model
    ? engine
    : {
        ...engine,
        context: {
          ...engine.context,
          model: {
            ...model,
            onUse: () => {
              if (modelConnection !== undefined) return;
              modelConnection = model.label;
              published.push(
                db.pipelineRun.update({ where: { uid }, data: { modelConnection } }).catch(() => undefined),
              );
            },
          },
        },
      };
  const done = (async (): Promise<RunRecord> => {
    let status: RunStatus = "completed";
    let error: string | null = null;
    let result: RunResult | undefined;
    try {
      result = await runPipeline(input.file, {
        ...deps.engine,
        ...runEngine,
        cwd: input.cwd,
        ...(input.param !== undefined ? { param: input.param } : {}),
        ...(input.demo ? { demo: true } : {}),
        ...(input.overrides ? { overrides: input.overrides } : {}),
        ...(input.checked ? { checked: input.checked } : {}),
        signal: controller.signal,
        onEvent: publish,
        onContext: async (ctx, parameters) => {
          await db.pipelineRun.update({
            where: { uid },
            data: {
              pipelineHash: ctx.hash,
              pipelinePath: path.relative(ctx.cwd, ctx.file) || ctx.file,
              // API keys given as overrides are not kept with the run.
              params: JSON.stringify(blankSecrets(parameters)),
            },
          });
        },
      });
    } catch (err) {
      status = err instanceof RunCancelledError || controller.signal.aborted ? "cancelled" : "failed";
      error =
        status === "cancelled"
          ? new RunCancelledError().message
          : publicError(err, { doing: doingFor(err), log: deps.log, context: { run: uid } }).message;
      if (interrupted.has(uid)) {
        status = "failed";
        error = RUN_INTERRUPTED;
      }
      send({ type: "error", message: error });
    } finally {
      running.delete(uid);
    }
    await Promise.all(published);
    await events.flush();
    // Only a run still running ends here: one cancelled meanwhile by another node keeps that.
    await db.pipelineRun.updateMany({
      where: { uid, status: "running" },
      data: {
        status,
        error,
        finishedAt: new Date(),
        ...(modelConnection !== undefined ? { modelConnection } : {}),
        ...(result ? { outputs: JSON.stringify(outputsOf(result)), memoryFile: result.memoryFile } : {}),
      },
    });
    return toRecord(await db.pipelineRun.findUniqueOrThrow({ where: { uid } }));
  })();
  inFlight.add(done);
  void done.then(
    () => inFlight.delete(done),
    () => inFlight.delete(done),
  );
  return done;
}

/** The engine's event as a run room's event. */
function roomEvent(e: PipelineEvent): RoomEventBody<"run"> {
  if (e.type === "token") return { type: "token", payload: { text: e.content, step: e.step, is_final: e.is_final } };
  return toEnvelope(e);
}
