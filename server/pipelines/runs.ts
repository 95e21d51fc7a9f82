/**
 * Pipeline runs as records: a `pipeline_run` row per run (who, pipeline and its version hash,
 * parameters, status, timings, result summary, memory file) and the run's events published to room
 * `run:<uid>` on the event bus, so a run can be watched live and replayed later (`bus.history`).
 *
 * Room events are the spec §4.4 events as `{ type, payload }` (server/shared/room-events.ts), except
 * `token`'s payload: `{text, step, is_final}` (the bus coalesces deltas by `text`; spec's `content` is
 * that text).
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import { requireRole, requireUser, type Actor } from "../auth/access.ts";
import type { Role } from "../auth/roles.ts";
import type { Db } from "../db/client.ts";
import { conflict, invalid, notFound } from "../errors.ts";
import { lockWorkspace } from "../workspaces/lock.ts";
import { createOutboundPolicy, type OutboundPolicy } from "../net/outbound.ts";
import { knowledgeBasesForRun } from "../knowledge/pipeline-access.ts";
import type { IndexCache } from "../retrieval/store/index.ts";
import { publicError } from "../errors-public.ts";
import type { Logger } from "../logger.ts";
import type { EventBus, RoomEventBody } from "../events/bus.ts";
import { toEnvelope } from "../shared/event-union.ts";
import { runRoom } from "../shared/rooms.ts";
import type { Pipeline } from "./dsl/ast.ts";
import type { AliasParameters } from "./dsl/params.ts";
import type { PipelineEvent } from "./engine/events.ts";
import { RunCancelledError, StepError } from "./engine/execute.ts";
import { runPipeline, type RunOptions, type RunResult } from "./engine/run.ts";
import { summarizeStep } from "./engine/summary.ts";
import { blankSecrets } from "./workspace/parameters.ts";
import { dbMemoryStore } from "./memory-db.ts";
import { processRefusal, type RunOrigin } from "./process-policy.ts";
import type { RunContext, RunModel } from "./servers/contract.ts";

export type RunStatus = "running" | "completed" | "failed" | "cancelled";

export interface StartRunInput {
  file: string;
  cwd: string;
  param?: string;
  demo?: boolean;
  overrides?: AliasParameters;
  workspaceId?: string;
  createdById?: string;
  /** The workspace pipeline and version, or the gallery entry, and what the run reads (web runs). */
  pipelineId?: string;
  pipelineVersion?: number;
  galleryKey?: string;
  dataset?: unknown;
  /** The run's id, when the caller prepared its directory first; default a new UUID. */
  uid?: string;
  /**
   * Default "cli": UltraRAG's behaviour. "app": `actor` starts it in `workspaceId` from the web app —
   * they must be a member or owner there; the run keeps memory per user in the database, reads that
   * workspace's knowledge bases only, and starts no process unless PIPELINES_ALLOW_PROCESSES is on
   * and they are an owner (process-policy.ts).
   */
  origin?: RunOrigin;
  actor?: Actor;
  /** Refuse (409) when this many runs of `workspaceId` are already running; checked and recorded
   * atomically, so concurrent starts cannot both pass. */
  maxRunning?: number;
  /** The pipeline as the caller parsed and validated it (RunOptions.checked). */
  checked?: Pipeline;
}

export interface RunRecord {
  uid: string;
  status: RunStatus;
  pipelineName: string;
  pipelinePath: string;
  pipelineHash: string;
  params: unknown;
  outputs: unknown;
  error: string | null;
  memoryFile: string | null;
  /** The workspace model connection the run's model steps used ("<name> · <model>"). */
  modelConnection: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

/** How long shutdown lets running pipeline runs finish before it stops them. */
export const RUN_SHUTDOWN_GRACE_MS = 10_000;
export const RUN_INTERRUPTED = "Interrupted: Argus was shut down while the run was in progress. Start it again.";

export interface RunServiceDeps {
  db: Db;
  events: EventBus;
  /** Where an unexpected failure's detail goes (the run record and room get a reference). */
  log: Logger;
  /** Passed through to the engine (external MCP servers, extra built-ins). */
  engine?: Pick<RunOptions, "external" | "builtins" | "log">;
  /** PIPELINES_ALLOW_PROCESSES (config.pipelines.allowProcesses): web-app runs by owners may start processes. */
  allowProcesses?: boolean;
  /** The outbound policy web-app runs' requests go through (server/net/outbound.ts); default: public hosts only. */
  outbound?: OutboundPolicy;
  /** The operator's environment for command-line runs (blank API keys are filled from it). */
  operatorEnv?: RunContext["operatorEnv"];
  /** The app's open search indexes: with it, a run in a workspace reads that workspace's knowledge bases. */
  searchIndexes?: IndexCache;
  /** The workspace's default model connection (null: none usable): model steps that name no model use it. */
  workspaceModel?: (workspaceId: string) => Promise<RunModel | null>;
}

type Row = Awaited<ReturnType<Db["pipelineRun"]["findUniqueOrThrow"]>>;

const toRecord = (r: Row): RunRecord => ({
  uid: r.uid,
  status: r.status as RunStatus,
  pipelineName: r.pipelineName,
  pipelinePath: r.pipelinePath,
  pipelineHash: r.pipelineHash,
  params: JSON.parse(r.params) as unknown,
  outputs: r.outputs === null ? null : (JSON.parse(r.outputs) as unknown),
  error: r.error,
  memoryFile: r.memoryFile,
  modelConnection: r.modelConnection,
  createdAt: r.createdAt,
  finishedAt: r.finishedAt,
});

/** The result summary stored with a completed run. */
function outputsOf(r: RunResult) {
  const last = r.snapshots[r.snapshots.length - 1];
  const tool = last?.step.split(".")[1] ?? "";
  return {
    steps: r.snapshots.length,
    lastStep: last?.step ?? null,
    summary: r.result ? summarizeStep(tool, r.result, last?.step.startsWith("prompt.") ?? false) : null,
    answer: r.answer,
  };
}

/** "running step retriever.search" when a step crashed, so the sentence still says where. */
const doingFor = (err: unknown) => (err instanceof StepError ? `running step ${err.step}` : "running the pipeline");

export function createRunService(deps: RunServiceDeps) {
  const { db, events } = deps;
  const running = new Map<string, AbortController>();
  /** Every run's `done` until it settles (shutdown waits for them before the database closes). */
  const inFlight = new Set<Promise<RunRecord>>();
  /** Runs stopped by shutdown: recorded as interrupted (failed), not as cancelled by someone. */
  const interrupted = new Set<string>();

  /** What the run may do and use, from who started it where (throws 401/403 for the app). */
  async function scope(input: StartRunInput): Promise<{ createdById?: string; engine: Partial<RunOptions> }> {
    const origin = input.origin ?? "cli";
    let role: Role | undefined;
    let userId = input.createdById;
    if (origin === "app") {
      const actor = requireUser(input.actor ?? null);
      if (!input.workspaceId) throw invalid("A pipeline run from the web app needs the workspace it runs in.");
      role = await requireRole(db, actor, input.workspaceId, "member");
      userId = actor.userId;
    }
    const refuseProcesses = processRefusal(origin, { allowProcesses: deps.allowProcesses ?? false, role });
    const context: RunContext = {};
    if (input.workspaceId && deps.searchIndexes)
      context.knowledge = knowledgeBasesForRun({ db, searchIndexes: deps.searchIndexes }, input.workspaceId);
    if (origin === "app" && input.workspaceId && userId)
      context.memory = dbMemoryStore(db, { workspaceId: input.workspaceId, userId });
    // A web-app run's parameters are a user's input: its requests reach public hosts only, its files
    // stay in its folder (the default of run-files.ts), and the server's keys are never lent to it.
    if (origin === "app") context.outbound = deps.outbound ?? createOutboundPolicy();
    else {
      context.fileAccess = "operator";
      if (deps.operatorEnv) context.operatorEnv = deps.operatorEnv;
    }
    // Model steps that name no model use the workspace's connection (servers/workspace-model.ts).
    if (origin === "app" && input.workspaceId && deps.workspaceModel)
      context.model = await deps.workspaceModel(input.workspaceId);
    return {
      ...(userId ? { createdById: userId } : {}),
      // The app's trace shows tokens per step; the CLI keeps UltraRAG's step_end as it is.
      engine: {
        context,
        ...(origin === "app" ? { stepTokens: true } : {}),
        ...(refuseProcesses ? { refuseProcesses } : {}),
      },
    };
  }

  /** The run's row; with `maxRunning`, counted and created under the workspace's lock. */
  async function createRow(input: StartRunInput, data: Parameters<Db["pipelineRun"]["create"]>[0]["data"]) {
    const { maxRunning, workspaceId } = input;
    if (maxRunning === undefined || !workspaceId) return db.pipelineRun.create({ data });
    return db.$transaction(async (tx) => {
      await lockWorkspace(tx, workspaceId);
      const running = await tx.pipelineRun.count({ where: { workspaceId, status: "running" } });
      if (running >= maxRunning)
        throw conflict(
          `${running} runs are already running in this workspace; wait for one to finish or cancel it, then start again.`,
        );
      return tx.pipelineRun.create({ data });
    });
  }

  /** The run's row (status running). */
  async function insert(input: StartRunInput, createdById: string | undefined): Promise<string> {
    const uid = input.uid ?? randomUUID();
    await createRow(input, {
      uid,
      pipelineName: path.basename(input.file).replace(/\.[^.]*$/, ""),
      pipelinePath: input.file,
      pipelineHash: "",
      params: "{}",
      ...(input.workspaceId ? { workspaceId: input.workspaceId } : {}),
      ...(createdById ? { createdById } : {}),
      ...(input.pipelineId ? { pipelineId: input.pipelineId, pipelineVersion: input.pipelineVersion ?? null } : {}),
      ...(input.galleryKey ? { galleryKey: input.galleryKey } : {}),
      ...(input.dataset !== undefined ? { dataset: JSON.stringify(input.dataset) } : {}),
    });
    return uid;
  }

  /** Runs the pipeline of run `uid` (its row exists) to its end; settles with the final record (never rejects). */
  function execute(uid: string, input: StartRunInput, engine: Partial<RunOptions>): Promise<RunRecord> {
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

  /** Starts a run; resolves once its row exists. `done` settles with the final record (never rejects). */
  async function start(input: StartRunInput): Promise<{ uid: string; done: Promise<RunRecord> }> {
    const { createdById, engine } = await scope(input);
    const uid = await insert(input, createdById);
    return { uid, done: execute(uid, input, engine) };
  }

  return {
    start,
    /**
     * A run to be run elsewhere (a worker, from a shared queue): its rights checked and its row
     * written now; `runQueued` runs it (checking the starter's rights again, as they are then).
     */
    async create(input: StartRunInput): Promise<string> {
      return insert(input, (await scope(input)).createdById);
    },
    async runQueued(uid: string, input: StartRunInput): Promise<RunRecord> {
      return execute(uid, input, (await scope(input)).engine);
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

/** The engine's event as a run room's event. */
function roomEvent(e: PipelineEvent): RoomEventBody<"run"> {
  if (e.type === "token") return { type: "token", payload: { text: e.content, step: e.step, is_final: e.is_final } };
  return toEnvelope(e);
}
