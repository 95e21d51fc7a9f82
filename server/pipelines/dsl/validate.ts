/**
 * Static validation (spec §2.2), run before any tool: a depth-first walk in YAML order (loop steps;
 * branch pre-router steps, router, then each state's steps in mapping order) that tracks which pool
 * variables exist. A step may read a variable only if an EARLIER step in that order declared it as an
 * output — also inside loops, where a later step's output does not count for the first iteration.
 * `$name` inputs must exist in the alias's parameters; `memory_*`/`mem_*` inputs are always allowed.
 */
import type { BranchStep, NamePair, Pipeline, Step, ToolStep } from "./ast.ts";
import { stepName } from "./ast.ts";
import { findCallable, type ServerCatalog } from "./catalog.ts";
import type { Diagnostic, DiagnosticCode, Severity } from "./errors.ts";
import { aliasParameters, type AliasParameters } from "./params.ts";
import type { Pos } from "./positions.ts";
import type { ServerSignature, ToolSignature } from "./schema.ts";
import { listNames, suggestion } from "./suggest.ts";

export interface ValidateOptions {
  catalog: ServerCatalog;
  /** Per-alias parameters `$name` resolves against; default: each server's own defaults (params.ts). */
  parameters?: AliasParameters;
}

const isMemoryName = (v: string) => v.startsWith("memory_") || v.startsWith("mem_");
/** UltraRAG canonicalises `mem_x` to `memory_x` (spec §2.4). */
const canonical = (v: string) => (v.startsWith("mem_") ? `memory_${v.slice(4)}` : v);

export function validatePipeline(pipeline: Pipeline, options: ValidateOptions): Diagnostic[] {
  return new Validator(pipeline, options).run();
}

class Validator {
  private readonly diagnostics: Diagnostic[] = [];
  private readonly pool = new Set<string>();
  /** alias → server description; undefined when the path is unknown (already reported). */
  private readonly servers = new Map<string, ServerSignature | undefined>();
  private readonly parameters: AliasParameters;

  constructor(
    private readonly pipeline: Pipeline,
    private readonly options: ValidateOptions,
  ) {
    this.parameters = options.parameters ?? aliasParameters(pipeline, options.catalog);
  }

  run(): Diagnostic[] {
    const { catalog } = this.options;
    for (const entry of this.pipeline.servers) {
      const server = catalog.lookup(entry.path);
      if (!server)
        this.report(
          "unknown_server",
          entry.pathPos,
          `Unknown server \`${entry.path}\` for alias \`${entry.alias}\``,
          suggestion(entry.path, catalog.paths(), "known servers"),
        );
      this.servers.set(entry.alias, server);
    }
    this.steps(this.pipeline.steps);
    return this.diagnostics;
  }

  private steps(steps: readonly Step[]) {
    for (const step of steps) {
      if (step.kind === "tool") this.tool(step);
      else if (step.kind === "loop") this.steps(step.steps);
      else this.branch(step);
    }
  }

  private branch(step: BranchStep) {
    this.steps(step.pre);
    this.tool(step.router);
    for (const c of step.branches) this.steps(c.steps);
  }

  private tool(step: ToolStep) {
    const signature = this.resolve(step);
    if (!signature) {
      // Still declare the explicitly renamed outputs, so one bad step does not cascade into
      // "variable not found" errors for every later step that reads them.
      for (const o of step.output) this.declare(o.value);
      return;
    }
    this.inputs(step, signature);
    this.outputs(step, signature);
  }

  private resolve(step: ToolStep): ToolSignature | undefined {
    const name = stepName(step);
    if (!this.servers.has(step.alias)) {
      const aliases = [...this.servers.keys()];
      const near = suggestion(step.alias, aliases, "declared aliases");
      this.report(
        "unknown_alias",
        step.pos,
        `Unknown server alias \`${step.alias}\` in step ${name}`,
        `${near}; aliases are declared under \`servers:\``,
      );
      return undefined;
    }
    const server = this.servers.get(step.alias);
    if (!server) return undefined; // unknown server path, reported once at `servers:`
    const found = findCallable(server, step.alias, step.tool);
    if (found && "misplacedPrompt" in found) {
      this.report(
        "unknown_tool",
        step.pos,
        `\`${step.tool}\` is a prompt, but alias \`${step.alias}\` calls tools`,
        "UltraRAG calls prompts only through the alias named `prompt`",
      );
      return undefined;
    }
    if (!found) {
      const names = Object.keys(step.alias === "prompt" ? { ...server.tools, ...server.prompts } : server.tools);
      this.report(
        "unknown_tool",
        step.pos,
        `Server alias \`${step.alias}\` has no tool \`${step.tool}\``,
        suggestion(step.tool, names, "its tools"),
      );
      return undefined;
    }
    return found.signature;
  }

  private inputs(step: ToolStep, signature: ToolSignature) {
    for (const p of step.input) {
      if (!(p.key in signature.input)) {
        this.report(
          "unknown_input",
          p.keyPos,
          `${stepName(step)} declares no input \`${p.key}\``,
          `its inputs: ${listNames(Object.keys(signature.input))}`,
          "warning",
        );
      }
    }
    // Default mapping first (the tool's parameter order), then overrides for parameters it does not map.
    const effective = new Map<string, { value: string; override?: NamePair }>();
    for (const [param, value] of Object.entries(signature.input)) effective.set(param, { value });
    for (const p of step.input) effective.set(p.key, { value: p.value, override: p });

    for (const [param, { value, override }] of effective) {
      const pos = override?.valuePos ?? step.pos;
      if (value.startsWith("$")) {
        this.parameter(step, value.slice(1), pos);
        this.pool.add(`memory_${value.slice(1)}`);
      } else if (isMemoryName(value)) {
        this.pool.add(canonical(value));
      } else if (!this.pool.has(value)) {
        const vars = [...this.pool].filter((v) => !isMemoryName(v));
        const near = suggestion(value, vars, "variables available here");
        const how = override
          ? near
          : `${near}; \`${value}\` is the default for input \`${param}\` — remap it with \`input: {${param}: <variable>}\``;
        this.report(
          "undefined_variable",
          pos,
          `Variable ${value} cannot be found from pipeline before ${stepName(step)} step`,
          how,
        );
      }
    }
  }

  private outputs(step: ToolStep, signature: ToolSignature) {
    const renames = new Map(step.output.map((p) => [p.key, p]));
    for (const p of step.output) {
      if (!signature.output.includes(p.key)) {
        this.report(
          "unknown_output",
          p.keyPos,
          `${stepName(step)} declares no output \`${p.key}\``,
          signature.output.length ? `its outputs: ${listNames(signature.output)}` : "it declares no outputs",
          "warning",
        );
        this.declare(p.value); // stored if the tool returns it anyway
      }
    }
    for (const out of signature.output) {
      const rename = renames.get(out);
      const name = rename?.value ?? out;
      if (name.startsWith("$")) this.parameter(step, name.slice(1), rename?.valuePos ?? step.pos);
      else this.declare(name);
    }
  }

  private parameter(step: ToolStep, name: string, pos: Pos) {
    const params = this.parameters[step.alias];
    if (params && Object.hasOwn(params, name)) return;
    const near = suggestion(name, Object.keys(params ?? {}), `\`${step.alias}\` parameters`);
    this.report(
      "missing_param",
      pos,
      `Variable ${name} not found in ${step.alias} parameter.yaml (step ${stepName(step)})`,
      `add \`${name}:\` to the \`${step.alias}:\` section of the parameter file; ${near}`,
    );
  }

  private declare(name: string) {
    const v = canonical(name);
    this.pool.add(v);
    if (!isMemoryName(v)) this.pool.add(`memory_${v}`);
  }

  private report(code: DiagnosticCode, pos: Pos, message: string, hint?: string, severity: Severity = "error") {
    this.diagnostics.push({
      code,
      severity,
      file: this.pipeline.file,
      line: pos.line,
      col: pos.col,
      message,
      ...(hint ? { hint } : {}),
    });
  }
}
