/**
 * Executing a validated pipeline tree (spec §2.8–2.10): tool steps against the pool, loops with the
 * terminal-flag exit rule, branches per router state. One Executor per run.
 *
 * Deliberate fixes (docs/pipelines.md): Q1 — a step's `input:` overrides apply to that step only;
 * Q5 — a loop always pops its terminal flag, so sibling and nested loops behave. Reproduced: Q3
 * (partial `output:` maps store only their keys), Q4 (string steps assign the loop flag, dict steps
 * AND it), Q6 (branch order is unspecified upstream; Argus runs states in `branches:` order).
 */
import { isUserFacing } from "../../errors.ts";
import type { BranchStep, LoopStep, Pipeline, Step, ToolStep } from "../dsl/ast.ts";
import { stepName } from "../dsl/ast.ts";
import { findCallable } from "../dsl/catalog.ts";
import type { AliasParameters } from "../dsl/params.ts";
import type { ToolSignature } from "../dsl/schema.ts";
import type { OpenedServer } from "../registry.ts";
import type { CallContext, RunContext } from "../servers/contract.ts";
import type { EventSink } from "./events.ts";
import type { Snapshot } from "./memory-file.ts";
import { canonical, parsePath, PipelineRuntimeError, VariablePool } from "./pool.ts";
import { SourceNumbering, summarizeStep } from "./summary.ts";

export interface ExecutorOptions {
  pipeline: Pipeline;
  servers: ReadonlyMap<string, OpenedServer>;
  parameters: AliasParameters;
  cwd: string;
  demo?: boolean;
  /** RunOptions.stepTokens. */
  stepTokens?: boolean;
  signal?: AbortSignal;
  onEvent?: EventSink;
  /** Servers' one-line notices (the run's log at warn level). */
  notice?: (message: string) => void;
  /** Memory store and knowledge bases the run's servers may use (runs in the web app). */
  context?: RunContext;
}

type Callable = { kind: "tool" | "prompt"; signature: ToolSignature; server: OpenedServer };

export class StepError extends Error {
  constructor(
    readonly step: string,
    cause: unknown,
  ) {
    super(`Step ${step} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "StepError";
  }

  /** Only as shown to users as its cause is: a tool's crash keeps its detail in the log. */
  get userFacing(): boolean {
    return isUserFacing(this.cause);
  }
}

export class RunCancelledError extends Error {
  constructor() {
    super("The run was cancelled");
    this.name = "RunCancelledError";
  }

  /** A fixed sentence (server/errors.ts isUserFacing). */
  get userFacing(): boolean {
    return true;
  }
}

export class Executor {
  readonly pool = new VariablePool();
  readonly snapshots: Snapshot[] = [];
  /** The last executed step's raw result (UltraRAG returns it from run()). */
  lastResult: Record<string, unknown> | undefined;
  private readonly flags: boolean[] = [];
  private stepCount = 0;
  private readonly sources = new SourceNumbering();
  private readonly hasMemoryServer: boolean;

  constructor(private readonly o: ExecutorOptions) {
    this.hasMemoryServer = [...o.servers.values()].some((s) => "save_memory" in s.signature.tools);
    this.declare(o.pipeline.steps);
  }

  isSkippedMemoryStep = (s: Step) => this.hasMemoryServer && s.kind === "tool" && s.tool === "save_memory";

  async run(): Promise<Record<string, unknown> | undefined> {
    await this.steps(this.o.pipeline.steps, 0, "BASE", true);
    return this.lastResult;
  }

  // ── static setup (UltraData init): every variable the pipeline mentions, in DFS order ──────────

  private declare(steps: readonly Step[]) {
    for (const s of steps) {
      if (s.kind === "loop") this.declare(s.steps);
      else if (s.kind === "branch") {
        this.declare(s.pre);
        this.declareTool(s.router);
        for (const c of s.branches) this.declare(c.steps);
      } else this.declareTool(s);
    }
  }

  private declareTool(step: ToolStep) {
    const c = this.callable(step);
    for (const v of Object.values(this.inputs(step, c.signature))) {
      if (v.startsWith("$")) this.pool.declareHistory(`memory_${v.slice(1)}`);
      else if (canonical(v).startsWith("memory_")) this.pool.declareHistory(v);
    }
    const renames = new Map(step.output.map((p) => [p.key, p.value]));
    const names = c.signature.output.map((o) => renames.get(o) ?? o);
    for (const [key, value] of renames) if (!c.signature.output.includes(key)) names.push(value);
    for (const name of names) if (!name.startsWith("$")) this.pool.declareOutput(name);
  }

  // ── execution ────────────────────────────────────────────────────────────────────────────────

  private async steps(steps: readonly Step[], depth: number, path: string, topLevel = false) {
    for (let i = 0; i < steps.length; i++) {
      if (this.o.signal?.aborted) throw new RunCancelledError();
      // In-process tools never leave the microtask queue: yield now and then so timers, I/O and
      // cancellation get a turn during long loops (the web server shares this thread).
      if (++this.stepCount % 256 === 0) await new Promise((r) => setImmediate(r));
      const step = steps[i]!;
      if (step.kind === "loop") await this.loop(step, depth, path);
      else if (step.kind === "branch") await this.branch(step, depth, path);
      else {
        const isFinal = topLevel && depth === 0 && steps.slice(i + 1).every(this.isSkippedMemoryStep);
        await this.tool(step, depth, path, isFinal);
      }
    }
  }

  private async loop(step: LoopStep, depth: number, path: string) {
    this.emit({ type: "step_start", name: "loop", depth });
    this.flags[depth] = true;
    try {
      for (let it = 0; it < step.times; it++) {
        this.flags[depth] = true;
        await this.steps(step.steps, depth + 1, path);
        if (this.flags[depth]) break; // no step at the loop's depth ran in this iteration
      }
    } finally {
      this.flags.length = depth; // Q5 fixed: always pop
    }
  }

  private async branch(step: BranchStep, depth: number, path: string) {
    this.emit({ type: "step_start", name: "branch", depth });
    await this.steps(step.pre, depth, path);
    const router = step.router;
    const name = stepName(router);
    const c = this.callable(router);
    const { args } = this.resolveArgs(router, c, path);
    const result = await this.call(router, c, args, false);
    const states = this.save(router, c, result, path, true);
    const known = new Set(step.branches.map((b) => b.state));
    const unknown = [...states].filter((s) => !known.has(s));
    if (unknown.length) {
      throw new PipelineRuntimeError(
        `Router ${name} returned state ${unknown.map((s) => `"${s}"`).join(", ")}, which the branch does not list; its states: ${[...known].join(", ")}`,
      );
    }
    const pairs = parsePath(path);
    const k = (pairs.length ? pairs[pairs.length - 1]![0] : 0) + 1;
    for (const b of step.branches)
      if (states.has(b.state)) await this.steps(b.steps, depth, `${path}/branch${k}_${b.state}`);
  }

  private async tool(step: ToolStep, depth: number, path: string, isFinal: boolean) {
    if (this.isSkippedMemoryStep(step)) return; // auto-saved after the run (spec §2.12)
    const name = stepName(step);
    this.emit({ type: "step_start", name, depth });
    const c = this.callable(step);
    const { args, skip } = this.resolveArgs(step, c, path);
    // Q4 reproduced: string steps assign the loop's terminal flag, dict steps AND it.
    if (depth > 0) this.flags[depth - 1] = step.form === "string" ? skip : this.flags[depth - 1]! && skip;
    // Q5 fixed, nested loops: a step that runs is activity for every enclosing loop, not only its own.
    if (!skip) for (let d = 0; d < depth - 1; d++) this.flags[d] = false;
    if (skip) return;
    if (
      this.o.demo &&
      c.server.target.kind === "builtin" &&
      c.server.target.name === "retriever" &&
      step.tool === "retriever_init"
    )
      args.is_demo = true;
    const tokens = { input: 0, output: 0, reported: false };
    const result = await this.call(step, c, args, isFinal, this.o.stepTokens ? tokens : undefined);
    const isRetriever = this.o.demo && c.server.target.kind === "builtin" && c.server.target.name === "retriever";
    if (isRetriever || step.tool.includes("citation")) {
      const data = this.sources.sources(result);
      if (data) this.emit({ type: "sources", data });
    }
    this.emit({
      type: "step_end",
      name,
      output: summarizeStep(step.tool, result, c.kind === "prompt"),
      ...(tokens.reported ? { tokens: { input: tokens.input, output: tokens.output } } : {}),
    });
    this.save(step, c, result, path, false);
  }

  private callable(step: ToolStep): Callable {
    const server = this.o.servers.get(step.alias);
    const found = server && findCallable(server.signature, step.alias, step.tool);
    if (!server || !found || "misplacedPrompt" in found)
      throw new PipelineRuntimeError(`Step ${stepName(step)} names no tool of its server`);
    return { ...found, server };
  }

  /** The step's input map: the tool's defaults with this step's overrides (Q1 fixed: never stored back). */
  private inputs(step: ToolStep, signature: ToolSignature): Record<string, string> {
    const items = { ...signature.input };
    for (const p of step.input) items[p.key] = p.value;
    return items;
  }

  private resolveArgs(step: ToolStep, c: Callable, path: string) {
    const items = Object.entries(this.inputs(step, c.signature));
    const name = stepName(step);
    const { args: poolArgs, skip } = this.pool.resolve(
      items.filter(([, v]) => !v.startsWith("$")),
      path,
      name,
    );
    const args: Record<string, unknown> = {};
    const params = this.o.parameters[step.alias] ?? {};
    for (const [param, v] of items) {
      if (!v.startsWith("$")) args[param] = poolArgs[param];
      else if (Object.hasOwn(params, v.slice(1))) args[param] = params[v.slice(1)];
      else
        throw new PipelineRuntimeError(
          `Variable ${v.slice(1)} not found in ${step.alias} parameter.yaml (step ${name})`,
        );
    }
    return { args, skip };
  }

  private async call(
    step: ToolStep,
    c: Callable,
    args: Record<string, unknown>,
    isFinal: boolean,
    tokens?: { input: number; output: number; reported: boolean },
  ): Promise<Record<string, unknown>> {
    const name = stepName(step);
    const ctx: CallContext = {
      ...this.o.context,
      cwd: this.o.cwd,
      ...(this.o.signal ? { signal: this.o.signal } : {}),
      ...(this.o.demo ? { demo: true } : {}),
      notice: (message) => this.o.notice?.(`${name}: ${message}`),
      onToken: (content) => {
        if (content) this.emit({ type: "token", content, step: name, is_final: isFinal });
      },
      ...(tokens
        ? {
            onUsage: (u: { input: number; output: number }) => {
              tokens.input += u.input;
              tokens.output += u.output;
              tokens.reported = true;
            },
          }
        : {}),
    };
    let result: unknown;
    try {
      result = await c.server.server.call(c.kind, step.tool, args, ctx);
    } catch (err) {
      if (this.o.signal?.aborted) throw new RunCancelledError();
      throw new StepError(name, err);
    }
    if (result === null || typeof result !== "object" || Array.isArray(result)) {
      throw new StepError(
        name,
        new PipelineRuntimeError(
          `the ${c.kind} returned ${Array.isArray(result) ? "a list" : typeof result}, not a record of outputs`,
        ),
      );
    }
    this.lastResult = result as Record<string, unknown>;
    return this.lastResult;
  }

  /** Stores the outputs (Q3 reproduced: an `output:` map names the only keys stored) and records the snapshot. */
  private save(
    step: ToolStep,
    c: Callable,
    result: Record<string, unknown>,
    path: string,
    router: boolean,
  ): Set<string> {
    const name = stepName(step);
    const renames = new Map(step.output.map((p) => [p.key, p.value]));
    const keys = renames.size ? [...renames.keys()] : c.signature.output;
    const memory: Record<string, unknown> = {};
    const states = new Set<string>();
    for (const key of keys) {
      if (!Object.hasOwn(result, key))
        throw new PipelineRuntimeError(
          `Output key ${key} not found in data for step ${name} (it returned: ${Object.keys(result).join(", ") || "nothing"})`,
        );
      const target = renames.get(key) ?? key;
      if (target.startsWith("$")) {
        (this.o.parameters[step.alias] ??= {})[target.slice(1)] = result[key];
        continue;
      }
      const s = this.pool.place(target, result[key], router ? `${path}/router` : path, name, router, memory);
      for (const x of s ?? []) states.add(x);
    }
    this.snapshots.push({ step: name, memory });
    return states;
  }

  private emit(event: Parameters<EventSink>[0]) {
    this.o.onEvent?.(event);
  }
}
