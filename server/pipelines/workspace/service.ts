/**
 * Pipelines in the web app: the built-in gallery and the workspace's own pipelines (forked from the
 * gallery or imported from YAML), their versions and diffs, and runs started from the browser.
 * Viewers list, read, validate and watch; members create, save, fork, delete, run and cancel.
 *
 * This file only composes the parts, each in its own module over the shared PipelineDeps (rows.ts):
 * library.ts (reading pipelines and the gallery), versions.ts (creating, saving, diffing), run-launch.ts
 * (starting a run, again), run-views.ts (runs as pages show them), run-control.ts (cancel, recovery).
 *
 * YAML that does not parse or validate is saved as a draft (valid = false) with its errors, and a
 * run of it is refused with the first error. Runs go through the same run service as the CLI's
 * `--record` (server/pipelines/runs.ts), each in a directory of its own (run-dir.ts), on built-in
 * servers only (catalog.ts), with file parameters confined to that directory (parameters.ts).
 * Every run is a "pipeline.run" job (run-job.ts, its one finishing path): the in-process queue runs it
 * here, BullMQ (REDIS_URL) on a worker.
 */
import type { z } from "zod";
import type { Actor } from "../../auth/access.ts";
import type { Signals } from "../../cluster/signals.ts";
import type { Config } from "../../config.ts";
import type { Db } from "../../db/client.ts";
import type { EventBus } from "../../events/bus.ts";
import type { JobQueue } from "../../jobs/queue.ts";
import { createSecretBox } from "../../lib/secret-box.ts";
import type { Logger } from "../../logger.ts";
import type { DraftEndings } from "../../coedit/endings.ts";
import { createOutboundPolicy, type OutboundPolicy } from "../../net/outbound.ts";
import { CHAT_BUILTINS } from "../chat/history-server.ts";
import { createRunService, type RunServiceDeps } from "../runs.ts";
import type * as In from "./inputs.ts";
import { galleryPipeline, getPipeline, listPipelines, listServers, pipelineDraft, validateSource } from "./library.ts";
import type { PipelineDeps } from "./rows.ts";
import { cancelRun, recoverInterrupted } from "./run-control.ts";
import { runsRoot } from "./run-dir.ts";
import { createRunJob } from "./run-job.ts";
import { launch, rerun, runSpec } from "./run-launch.ts";
import { compareRuns, getRun, listRuns, runCase } from "./run-views.ts";
import { createPipeline, diffVersions, forkPipeline, listVersions, removePipeline, savePipeline } from "./versions.ts";

export function createPipelineService(deps: {
  db: Db;
  config: Config;
  events: EventBus;
  log: Logger;
  authSecret: string;
  /** The app's open search indexes: runs read their workspace's knowledge bases through them. */
  searchIndexes: RunServiceDeps["searchIndexes"];
  /** Web runs are "pipeline.run" jobs (run-job.ts): in this process, or on the workers (BullMQ). */
  queue: JobQueue;
  /** Given (several nodes), a cancel reaches the node running the run. */
  signals?: Signals;
  /** Told when a pipeline is deleted: its shared draft ends (server/coedit). */
  draftEndings?: Pick<DraftEndings, "emit">;
  /** Where runs' requests may go (server/net/outbound.ts); default from config. */
  outbound?: OutboundPolicy;
  /** The workspace's default model connection, for runs' model steps that name no model. */
  workspaceModel?: RunServiceDeps["workspaceModel"];
}) {
  const { db, config, events, log } = deps;
  const box = createSecretBox(deps.authSecret, "pipeline-parameters");
  const runs = createRunService({
    db,
    events,
    log,
    allowProcesses: config.pipelines.allowProcesses,
    outbound: deps.outbound ?? createOutboundPolicy({ allow: config.outbound.allow }),
    searchIndexes: deps.searchIndexes,
    ...(deps.workspaceModel ? { workspaceModel: deps.workspaceModel } : {}),
    // Chat follow-ups (server/pipelines/chat) read their conversation through this one; users' YAML
    // validates against the catalog, which does not know it.
    engine: { builtins: CHAT_BUILTINS },
  });
  const root = runsRoot(config.dataDir);
  const d: PipelineDeps = {
    db,
    config,
    events,
    log,
    queue: deps.queue,
    signals: deps.signals,
    box,
    runs,
    root,
    draftEndings: deps.draftEndings,
  };
  const runJob = createRunJob({ db, events, runs, box, log, root, signals: deps.signals });

  return {
    runs,
    /** The "pipeline.run" job, registered by the composition root (server/jobs/registry.ts). */
    runJob,
    /** What a run of a workspace pipeline or gallery entry needs (member of its workspace). */
    runSpec: (actor: Actor, t: z.infer<typeof In.runTarget>) => runSpec(d, actor, t),

    list: (actor: Actor, workspace: string) => listPipelines(d, actor, workspace),
    gallery: (actor: Actor, input: z.infer<typeof In.galleryInput>) => galleryPipeline(d, actor, input),
    get: (actor: Actor, pipelineUid: string) => getPipeline(d, actor, pipelineUid),
    validate: (actor: Actor, input: z.infer<typeof In.validateInput>) => validateSource(d, actor, input),
    servers: (actor: Actor, workspace: string) => listServers(d, actor, workspace),

    create: (actor: Actor, input: z.infer<typeof In.createInput>) => createPipeline(d, actor, input),
    fork: (actor: Actor, input: z.infer<typeof In.forkInput>) => forkPipeline(d, actor, input),
    /** What a shared draft starts from (server/coedit); the room protocol authorized the room already. */
    draft: (pipelineUid: string) => pipelineDraft(d, pipelineUid),
    /** A new version; `editedBy`: who edited the shared draft since the last version (server/coedit). */
    save: (actor: Actor, input: z.infer<typeof In.saveInput>, opts?: { editedBy?: string[] }) =>
      savePipeline(d, actor, input, opts),
    remove: (actor: Actor, pipelineUid: string) => removePipeline(d, actor, pipelineUid),
    versions: (actor: Actor, pipelineUid: string) => listVersions(d, actor, pipelineUid),
    diff: (actor: Actor, input: z.infer<typeof In.diffInput>) => diffVersions(d, actor, input),

    startRun: async (actor: Actor, input: z.infer<typeof In.startRunInput>) =>
      launch(d, actor, await runSpec(d, actor, input.target), input.dataset),
    rerun: (actor: Actor, runUid: string) => rerun(d, actor, runUid),
    compareRuns: (actor: Actor, input: z.infer<typeof In.compareRunsInput>) => compareRuns(d, actor, input),
    cancelRun: (actor: Actor, runUid: string) => cancelRun(d, actor, runUid),
    listRuns: (actor: Actor, input: z.infer<typeof In.runsInput>) => listRuns(d, actor, input),
    getRun: (actor: Actor, runUid: string) => getRun(d, actor, runUid),
    runCase: (actor: Actor, input: z.infer<typeof In.runCaseInput>) => runCase(d, actor, input),

    /** Shutdown: runs started from the web are finished or stopped, and their ends recorded (runs.ts). */
    shutdown: (graceMs?: number) => runs.shutdown(graceMs),
    /** Runs cut off by the last shutdown: marked failed, their folders removed. */
    recoverInterrupted: () => recoverInterrupted(d),
  };
}

export type PipelineService = ReturnType<typeof createPipelineService>;
