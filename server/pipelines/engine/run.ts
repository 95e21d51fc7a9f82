/**
 * Running a pipeline file end to end (UltraRAG's `run` / execute_pipeline, spec §2.1): load the file
 * and parameter file, open one server per alias, validate statically (nothing runs if anything is
 * wrong), execute, call cleanup tools, auto-save a memory turn, write the memory file, and report
 * `final` or `error` through `onEvent`. Servers are always closed.
 */
import type { Pipeline, Step } from "../dsl/ast.ts";
import { errorsOf, PipelineInvalidError } from "../dsl/errors.ts";
import { aliasParameters, type AliasParameters } from "../dsl/params.ts";
import { validatePipeline } from "../dsl/validate.ts";
import { closeAll, ServerRegistry, type ExternalResolver, type OpenedServer } from "../registry.ts";
import type { CallContext, RunContext } from "../servers/contract.ts";
import type { BuiltinFactory } from "../servers/define.ts";
import { loadPipelineContext, type PipelineContext } from "./context.ts";
import type { EventSink, PipelineEvent } from "./events.ts";
import { Executor } from "./execute.ts";
import { type Snapshot, writeMemoryFile } from "./memory-file.ts";
import { messageText, unwrap } from "./values.ts";

export type LogLevel = "debug" | "info" | "warn" | "error";
export type RunLog = (level: LogLevel, message: string) => void;

export interface RunOptions {
  /** The run's directory; every relative path resolves against it (UltraRAG: the CWD). Default: process.cwd(). */
  cwd?: string;
  /** `--param`: a parameter file replacing the default `parameter/<stem>_parameter.yaml`. */
  param?: string;
  /** Per-alias parameter overrides applied after the file (UltraRAG UI's override_params: shallow, per alias). */
  overrides?: AliasParameters;
  demo?: boolean;
  /** Put the model tokens a step used on its step_end (an Argus addition: UltraRAG's step_end has
   * name and output only, so runs that must match it — the CLI, conformance — leave this off). */
  stepTokens?: boolean;
  onEvent?: EventSink;
  log?: RunLog;
  signal?: AbortSignal;
  /** External MCP servers (server/pipelines/mcp createMcpServer); without it only built-ins resolve. */
  external?: ExternalResolver;
  /** Extra built-in servers (tests, benchmarks). */
  builtins?: Record<string, BuiltinFactory>;
  /** Default true; false skips the memory file (benchmarks). */
  writeMemory?: boolean;
  now?: () => Date;
  /** Memory store and knowledge bases for the run's servers (the run service sets them for runs in
   * the web app); absent: UltraRAG's memory files, no knowledge bases. */
  context?: RunContext;
  /** Set: no server may be started as a process (`stdio:`, a `.py` path); the sentence says why. */
  refuseProcesses?: string;
  /** The file's pipeline, already parsed and validated against the built-in servers by the caller
   * (the web app's run start): the run neither parses nor validates it again. */
  checked?: Pipeline;
  /** Called once the context is loaded, before any server opens (the run service records the row here). */
  onContext?: (ctx: PipelineContext, parameters: AliasParameters) => void | Promise<void>;
}

export interface RunResult {
  /** The last executed step's raw result (what UltraRAG's run() returns). */
  result: Record<string, unknown> | undefined;
  snapshots: Snapshot[];
  memoryFile: string | null;
  /** Parameters per alias the run used. */
  parameters: AliasParameters;
  answer: string | null;
  context: PipelineContext;
  /** The final variable pool (unwrapped), for the TypeScript API and tests. */
  variables: Record<string, unknown>;
}

function usedAliases(steps: readonly Step[], out = new Set<string>()): Set<string> {
  for (const s of steps) {
    if (s.kind === "tool") out.add(s.alias);
    else if (s.kind === "loop") usedAliases(s.steps, out);
    else {
      usedAliases(s.pre, out);
      out.add(s.router.alias);
      for (const b of s.branches) usedAliases(b.steps, out);
    }
  }
  return out;
}

/** Opens the servers and validates; returns what execution needs. Closes the servers on failure. */
export async function prepare(
  pipeline: Pipeline,
  registry: ServerRegistry,
  parameterData: Record<string, unknown>,
  overrides?: AliasParameters,
  validate = true,
) {
  const opened = await registry.openAll(pipeline.servers, usedAliases(pipeline.steps));
  try {
    const catalog = registry.catalog(opened, pipeline.servers);
    const parameters = aliasParameters(pipeline, catalog, parameterData);
    for (const [alias, values] of Object.entries(overrides ?? {}))
      if (parameters[alias]) Object.assign(parameters[alias], values);
    if (validate) {
      const diagnostics = validatePipeline(pipeline, { catalog, parameters });
      if (errorsOf(diagnostics).length) throw new PipelineInvalidError(diagnostics);
    }
    return { opened, parameters };
  } catch (err) {
    await closeAll(opened);
    throw err;
  }
}

export async function runPipeline(file: string, options: RunOptions = {}): Promise<RunResult> {
  const emit = (e: PipelineEvent) => options.onEvent?.(e);
  const log: RunLog = options.log ?? (() => {});
  let opened: Map<string, OpenedServer> | undefined;
  try {
    const ctx = await loadPipelineContext(file, {
      cwd: options.cwd ?? process.cwd(),
      param: options.param,
      parsed: options.checked,
    });
    const registry = new ServerRegistry({
      cwd: ctx.cwd,
      ...(options.builtins ? { builtins: options.builtins } : {}),
      ...(options.external ? { external: options.external } : {}),
      ...(options.refuseProcesses ? { refuseProcesses: options.refuseProcesses } : {}),
    });
    const prepared = await prepare(ctx.pipeline, registry, ctx.parameterData, options.overrides, !options.checked);
    opened = prepared.opened;
    const { parameters } = prepared;
    await options.onContext?.(ctx, parameters);
    log("info", `running ${ctx.displayFile} (${ctx.pipeline.servers.length} server(s))`);

    const executor = new Executor({
      pipeline: ctx.pipeline,
      servers: opened,
      parameters,
      cwd: ctx.cwd,
      ...(options.demo ? { demo: true } : {}),
      ...(options.stepTokens ? { stepTokens: true } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      notice: (message) => log("warn", message),
      ...(options.context ? { context: options.context } : {}),
      onEvent: (e) => {
        if (e.type === "step_start") log("info", `${"  ".repeat(e.depth)}${e.name}`);
        else if (e.type === "step_end") log("debug", e.output);
        emit(e);
      },
    });
    try {
      await executor.run();
    } finally {
      await cleanup(opened, { ...options.context, cwd: ctx.cwd }, log);
    }
    await autoSaveMemory(opened, parameters, executor, { ...options.context, cwd: ctx.cwd }, log);
    const memoryFile =
      options.writeMemory === false
        ? null
        : writeMemoryFile(ctx.cwd, ctx.stem, parameters, executor.snapshots, (options.now ?? (() => new Date()))());
    if (memoryFile) log("info", `memory file: ${memoryFile}`);
    const answer = firstAnswer(executor.lastResult);
    const dataset = (parameters.benchmark?.benchmark as { path?: unknown } | undefined)?.path;
    emit({
      type: "final",
      data: {
        status: "succeeded",
        answer,
        dataset_path: typeof dataset === "string" ? dataset : null,
        memory_path: memoryFile,
        is_first_turn: true,
      },
    });
    const variables: Record<string, unknown> = {};
    for (const [k, v] of executor.pool.vars) variables[k] = unwrap(v);
    return {
      result: executor.lastResult,
      snapshots: executor.snapshots,
      memoryFile,
      parameters,
      answer,
      context: ctx,
      variables,
    };
  } catch (err) {
    emit({ type: "error", message: err instanceof Error ? err.message : String(err) });
    throw err;
  } finally {
    if (opened) await closeAll(opened);
  }
}

/** UltraRAG calls every tool ending in `vllm_shutdown` after a run; failures are only logged. */
async function cleanup(opened: ReadonlyMap<string, OpenedServer>, ctx: CallContext, log: RunLog) {
  for (const o of opened.values()) {
    for (const tool of Object.keys(o.signature.tools).filter((t) => t.endsWith("vllm_shutdown"))) {
      await o.server
        .call("tool", tool, {}, ctx)
        .catch((err: unknown) =>
          log("warn", `${o.alias}.${tool} failed: ${err instanceof Error ? err.message : String(err)}`),
        );
    }
  }
}

/** Spec §2.12: with a memory server, the first question and answer are saved after the run. */
async function autoSaveMemory(
  opened: ReadonlyMap<string, OpenedServer>,
  parameters: AliasParameters,
  executor: Executor,
  ctx: CallContext,
  log: RunLog,
) {
  const memory = [...opened.values()].find((o) => "save_memory" in o.signature.tools);
  if (!memory) return;
  const q = (unwrap(executor.pool.get("q_ls")) as unknown[] | null) ?? [];
  const question = q.map((x) => (typeof x === "string" ? x : (messageText(x) ?? ""))).find((x) => x.trim() !== "");
  const answers = unwrap(executor.pool.get("ans_ls")) as unknown[] | null;
  const answer = answers?.length ? String(answers[0]).trim() : (firstAnswer(executor.lastResult) ?? "");
  if (!question || !answer) return;
  const userId = parameters[memory.alias]?.user_id ?? "default";
  await memory.server
    .call("tool", "save_memory", { user_id: userId, q_ls: [question], ans_ls: [answer] }, ctx)
    .catch((err: unknown) =>
      log("warn", `memory auto-save failed: ${err instanceof Error ? err.message : String(err)}`),
    );
}

function firstAnswer(result: Record<string, unknown> | undefined): string | null {
  const ans = result?.ans_ls;
  return Array.isArray(ans) && ans.length > 0 && ans[0] !== undefined && ans[0] !== null ? String(ans[0]) : null;
}
