/**
 * The TypeScript API, mirroring UltraRAG's Python one (spec §2.12):
 *
 *   const toolCall = await initialize(["benchmark", "custom"], { serverRoot: dir });
 *   const { q_ls } = await toolCall.benchmark.get_data();          // `$` inputs filled from parameters
 *   await toolCall.custom.output_extract_from_boxed({ ans_ls });   // other inputs must be passed
 *   await toolCall.close();
 *
 *   const { result, snapshots } = await runPipeline("examples/experiments/sayhello.yaml", { param: "p.yaml" });
 */
import path from "node:path";
import { ServerRegistry, closeAll, type ExternalResolver, type OpenedServer } from "./registry.ts";
import type { BuiltinFactory } from "./servers/define.ts";
import { runPipeline, type RunOptions } from "./engine/run.ts";

export { runPipeline, type RunOptions, type RunResult } from "./engine/run.ts";
export { buildPipeline } from "./build.ts";

export type ToolFn = (args?: Record<string, unknown>) => Promise<Record<string, unknown>>;
export type ToolCall = Record<string, Record<string, ToolFn>> & { close(): Promise<void> };

export class ToolCallError extends Error {}

/** Opens servers by name (`servers/<name>` under `serverRoot`, default the current directory). */
export async function initialize(
  servers: readonly string[],
  options: { serverRoot?: string; external?: ExternalResolver; builtins?: Record<string, BuiltinFactory> } = {},
): Promise<ToolCall> {
  const cwd = path.resolve(options.serverRoot ?? process.cwd());
  const registry = new ServerRegistry({
    cwd,
    ...(options.external ? { external: options.external } : {}),
    ...(options.builtins ? { builtins: options.builtins } : {}),
  });
  const opened = new Map<string, OpenedServer>();
  try {
    for (const name of servers)
      opened.set(name, await registry.open(name, name.includes("/") || name.includes(":") ? name : `servers/${name}`));
  } catch (err) {
    await closeAll(opened);
    throw err;
  }
  const api: Record<string, unknown> = { close: () => closeAll(opened) };
  for (const [name, o] of opened) {
    const fns: Record<string, ToolFn> = {};
    const kinds = [
      ...Object.entries(o.signature.tools).map(([t, s]) => [t, "tool", s] as const),
      ...Object.entries(o.signature.prompts).map(([t, s]) => [t, "prompt", s] as const),
    ];
    for (const [tool, kind, sig] of kinds) {
      fns[tool] ??= async (given = {}) => {
        const args: Record<string, unknown> = {};
        for (const [param, source] of Object.entries(sig.input)) {
          if (Object.hasOwn(given, param)) args[param] = given[param];
          else if (source.startsWith("$") && Object.hasOwn(o.signature.parameters, source.slice(1)))
            args[param] = o.signature.parameters[source.slice(1)];
          else
            throw new ToolCallError(
              `toolCall.${name}.${tool}: missing input \`${param}\` (the pipeline would read it from \`${source}\`)`,
            );
        }
        // The library's caller is the operator: UltraRAG's file access (paths anywhere).
        return o.server.call(kind, tool, args, { cwd, fileAccess: "operator" });
      };
    }
    api[name] = fns;
  }
  return api as ToolCall;
}

/** UltraRAG's PipelineCall: the run's last result and every snapshot. */
export async function pipelineCall(file: string, options: RunOptions = {}) {
  const r = await runPipeline(file, options);
  return { final_result: r.result, all_results: r.snapshots };
}
