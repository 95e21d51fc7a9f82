/**
 * `pipeline build` (spec §3.3): writes `<dir>/server/<stem>_server.yaml` (the used tools/prompts of
 * each alias with their I/O, its parameter.yaml and the server it runs) and
 * `<dir>/parameter/<stem>_parameter.yaml` (every `$param` the used tools read, with its default).
 *
 * Deviations from UltraRAG (docs/pipelines.md): `path:` names the Argus server
 * (`argus:servers/<name>`, or the external server's URL/command); and an existing parameter file is
 * merged, not overwritten (Q13): values the user set are kept, new parameters are added with their
 * defaults, parameters (and aliases) no longer used are dropped.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { stringify } from "yaml";
import type { Step, ToolStep } from "./dsl/ast.ts";
import { findCallable } from "./dsl/catalog.ts";
import { errorsOf, PipelineInvalidError, type DiagnosticCode } from "./dsl/errors.ts";
import { normalizeServerPath } from "./dsl/catalog.ts";
import type { ToolSignature } from "./dsl/schema.ts";
import { validatePipeline } from "./dsl/validate.ts";
import { defaultParameterFile, loadPipelineContext } from "./engine/context.ts";
import { closeAll, ServerRegistry, type ExternalResolver, type OpenedServer } from "./registry.ts";
import type { BuiltinFactory } from "./servers/define.ts";

export interface BuildOptions {
  cwd?: string;
  external?: ExternalResolver;
  builtins?: Record<string, BuiltinFactory>;
}

type Entry = { input: Record<string, string>; output?: string[] };
export type ServerFileSection = {
  tools?: Record<string, Entry>;
  prompts?: Record<string, Entry>;
  parameter?: string;
  path: string;
};

export interface BuildResult {
  serverFile: string;
  parameterFile: string;
  servers: Record<string, ServerFileSection>;
  parameters: Record<string, Record<string, unknown>>;
  /** What the merge with an existing parameter file did, as `alias.key` names. */
  merge: { existed: boolean; kept: string[]; added: string[]; dropped: string[] };
}

/** Problems that make a build meaningless; variable flow and `$param`s are checked by `run`, as upstream. */
const BUILD_ERRORS = new Set<DiagnosticCode>(["unknown_server", "unknown_alias", "unknown_tool"]);

function toolSteps(steps: readonly Step[], out: ToolStep[] = []): ToolStep[] {
  for (const s of steps) {
    if (s.kind === "tool") out.push(s);
    else if (s.kind === "loop") toolSteps(s.steps, out);
    else {
      toolSteps(s.pre, out);
      out.push(s.router);
      for (const b of s.branches) toolSteps(b.steps, out);
    }
  }
  return out;
}

const entry = (sig: ToolSignature): Entry =>
  sig.output.length ? { input: { ...sig.input }, output: [...sig.output] } : { input: { ...sig.input } };
const isMapping = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

export async function buildPipeline(file: string, options: BuildOptions = {}): Promise<BuildResult> {
  const ctx = await loadPipelineContext(file, { cwd: options.cwd ?? process.cwd() });
  const registry = new ServerRegistry({
    cwd: ctx.cwd,
    ...(options.builtins ? { builtins: options.builtins } : {}),
    ...(options.external ? { external: options.external } : {}),
  });
  const opened = await registry.openAll(ctx.pipeline.servers);
  try {
    const diagnostics = validatePipeline(ctx.pipeline, {
      catalog: registry.catalog(opened, ctx.pipeline.servers),
      parameters: {},
    });
    const fatal = errorsOf(diagnostics).filter((d) => BUILD_ERRORS.has(d.code));
    if (fatal.length) throw new PipelineInvalidError(fatal);

    const servers: Record<string, ServerFileSection> = {};
    const defaults: Record<string, Record<string, unknown>> = {};
    const sections = new Map<string, { tools: Record<string, Entry>; server: OpenedServer }>();
    for (const step of toolSteps(ctx.pipeline.steps)) {
      const o = opened.get(step.alias)!;
      const found = findCallable(o.signature, step.alias, step.tool);
      if (!found || "misplacedPrompt" in found) continue; // reported above
      let section = sections.get(step.alias);
      if (!section) sections.set(step.alias, (section = { tools: {}, server: o }));
      section.tools[step.tool] ??= entry(found.signature);
      const params = o.signature.parameters;
      if (Object.keys(params).length === 0) continue;
      const target = (defaults[step.alias] ??= {});
      for (const v of Object.values(found.signature.input)) {
        if (v.startsWith("$") && Object.hasOwn(params, v.slice(1))) target[v.slice(1)] = params[v.slice(1)];
      }
    }
    for (const [alias, { tools, server }] of sections) {
      const section: ServerFileSection = alias === "prompt" ? { prompts: tools, path: "" } : { tools, path: "" };
      if (server.target.parameterFile) section.parameter = `${normalizeServerPath(server.path)}/parameter.yaml`;
      section.path = server.target.label;
      servers[alias] = {
        ...(section.tools ? { tools: section.tools } : { prompts: section.prompts! }),
        ...(section.parameter ? { parameter: section.parameter } : {}),
        path: section.path,
      };
    }

    const parameterFile = defaultParameterFile(ctx.dir, ctx.stem);
    const existing = ctx.parameterFile === parameterFile ? ctx.parameterData : undefined;
    const { parameters, merge } = mergeParameters(defaults, existing);
    const serverFile = path.join(ctx.dir, "server", `${ctx.stem}_server.yaml`);
    mkdirSync(path.dirname(serverFile), { recursive: true });
    mkdirSync(path.dirname(parameterFile), { recursive: true });
    writeFileSync(serverFile, dump(servers));
    writeFileSync(parameterFile, dump(parameters));
    return { serverFile, parameterFile, servers, parameters, merge };
  } finally {
    await closeAll(opened);
  }
}

/** Keeps the user's values for parameters still used; adds new ones with defaults; drops the rest. */
export function mergeParameters(
  defaults: Record<string, Record<string, unknown>>,
  existing: Record<string, unknown> | undefined,
) {
  const merge = {
    existed: existing !== undefined,
    kept: [] as string[],
    added: [] as string[],
    dropped: [] as string[],
  };
  const parameters: Record<string, Record<string, unknown>> = {};
  for (const [alias, values] of Object.entries(defaults)) {
    const old = existing && isMapping(existing[alias]) ? existing[alias] : undefined;
    parameters[alias] = {};
    for (const [key, value] of Object.entries(values)) {
      if (old && Object.hasOwn(old, key)) {
        parameters[alias][key] = old[key];
        merge.kept.push(`${alias}.${key}`);
      } else {
        parameters[alias][key] = value;
        if (existing) merge.added.push(`${alias}.${key}`);
      }
    }
    for (const key of Object.keys(old ?? {})) if (!Object.hasOwn(values, key)) merge.dropped.push(`${alias}.${key}`);
  }
  for (const alias of Object.keys(existing ?? {})) if (!Object.hasOwn(defaults, alias)) merge.dropped.push(alias);
  return { parameters, merge };
}

/** YAML like Python's safe_dump(sort_keys=False): block style, list items at their key's indentation. */
const dump = (v: unknown) =>
  isMapping(v) && Object.keys(v).length === 0 ? "{}\n" : stringify(v, { indentSeq: false, lineWidth: 0 });
