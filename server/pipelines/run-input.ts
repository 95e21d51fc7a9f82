/**
 * What a pipeline run is started with (StartRunInput: the pipeline, its parameters, who starts it
 * where) and what the run service is given (RunServiceDeps).
 */
import type { Actor } from "../auth/access.ts";
import type { Db } from "../db/client.ts";
import type { EventBus } from "../events/bus.ts";
import type { Logger } from "../logger.ts";
import type { OutboundPolicy } from "../net/outbound.ts";
import type { IndexCache } from "../retrieval/store/index.ts";
import type { Pipeline } from "./dsl/ast.ts";
import type { AliasParameters } from "./dsl/params.ts";
import type { RunOptions } from "./engine/run.ts";
import type { RunOrigin } from "./process-policy.ts";
import type { RunContext, RunModel } from "./servers/contract.ts";

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
