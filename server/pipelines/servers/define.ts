/**
 * `defineServer`: how Argus's built-in pipeline servers are written. A declaration lists each tool
 * (or prompt) as UltraRAG registers it — the function's parameter names and its `output=` spec — plus
 * the TypeScript function that runs it. The result is a factory for PipelineServer instances (one per
 * `servers:` alias, so aliases sharing a server keep separate state, as UltraRAG's separate processes
 * do). A tool without `run` is declared (so pipelines validate and build) but fails when called.
 */
import type { ServerSignature, ToolSignature } from "../dsl/schema.ts";
import type { CallContext, PipelineServer } from "./contract.ts";
import { signatureFromSpec } from "./io-spec.ts";

export type ToolArgs = Record<string, unknown>;
export type ToolResult = Record<string, unknown>;

export interface ToolDef<S> {
  /** The function's parameter names, in order (UltraRAG zips them with the spec by position). */
  params: readonly string[];
  /** UltraRAG's `output=` string, e.g. `"q_ls,top_k->ret_psg"`; omitted = inputs only. */
  output?: string;
  run?: (args: ToolArgs, ctx: CallContext, state: S) => ToolResult | Promise<ToolResult>;
}

export interface ServerDef<S> {
  name: string;
  /** Defaults used when the working directory has no `servers/<name>/parameter.yaml`. */
  defaults: Record<string, unknown>;
  tools?: Record<string, ToolDef<S>>;
  prompts?: Record<string, ToolDef<S>>;
  /** Per-instance state (e.g. a citation registry); created when the alias's server is opened. */
  state?: () => S;
}

export interface BuiltinOptions {
  /** The server's parameters (its parameter.yaml); undefined = the declaration's defaults. */
  parameters?: Record<string, unknown>;
}

export type BuiltinFactory = ((options?: BuiltinOptions) => PipelineServer) & { readonly serverName: string };

/** Thrown by built-in tools for bad arguments or data; the engine reports it with the step name. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolError";
  }

  /** A built-in tool's bad arguments or data, for the pipeline's author (server/errors.ts isUserFacing). */
  get userFacing(): boolean {
    return true;
  }
}

export class NotImplementedError extends ToolError {
  constructor(server: string, name: string) {
    super(
      `${server}.${name} is not implemented in Argus yet: its signature is declared so pipelines validate and build, but calling it needs the ${server} server's implementation`,
    );
    this.name = "NotImplementedError";
  }
}

export function defineServer<S = undefined>(def: ServerDef<S>): BuiltinFactory {
  const factory = (options: BuiltinOptions = {}): PipelineServer => {
    const parameters = options.parameters ?? def.defaults;
    const keys = new Set(Object.keys(parameters));
    const derive = (defs: Record<string, ToolDef<S>> = {}) => {
      const out: Record<string, ToolSignature> = {};
      for (const [name, d] of Object.entries(defs)) out[name] = signatureFromSpec(d.params, d.output, keys);
      return out;
    };
    const signature: ServerSignature = {
      tools: derive(def.tools),
      prompts: derive(def.prompts),
      parameters: structuredClone(parameters),
    };
    const state = def.state ? def.state() : (undefined as S);
    let closed = false;
    return {
      name: def.name,
      signature: async () => signature,
      async call(kind, name, args, ctx) {
        if (closed) throw new ToolError(`server ${def.name} is closed`);
        const tool = (kind === "prompt" ? def.prompts : def.tools)?.[name];
        if (!tool) throw new ToolError(`server ${def.name} has no ${kind} ${name}`);
        if (!tool.run) throw new NotImplementedError(def.name, name);
        return tool.run(args, ctx, state);
      },
      async close() {
        closed = true;
      },
    };
  };
  return Object.assign(factory, { serverName: def.name });
}

// ── argument helpers for tool implementations ────────────────────────────────────────────────────

/** A list argument (UltraRAG batches); a single string is accepted as a one-item list, like its tools. */
export function listArg(args: ToolArgs, name: string, tool: string): unknown[] {
  const v = args[name];
  if (Array.isArray(v)) return v;
  if (typeof v === "string") return [v];
  throw new ToolError(
    `${tool}: input \`${name}\` must be a list, got ${describe(v)} — map it to a pool variable holding one value per item`,
  );
}

/** A list of strings; non-string items are an error naming the index. */
export function stringListArg(args: ToolArgs, name: string, tool: string): string[] {
  return listArg(args, name, tool).map((v, i) => {
    if (typeof v === "string") return v;
    throw new ToolError(`${tool}: item ${i} of \`${name}\` must be text, got ${describe(v)}`);
  });
}

export function describe(v: unknown): string {
  if (v === null) return "null";
  if (v === undefined) return "nothing (the variable was never set)";
  if (Array.isArray(v)) return `a list of ${v.length}`;
  return typeof v === "object" ? "an object" : `${typeof v} ${JSON.stringify(v)?.slice(0, 40)}`;
}
