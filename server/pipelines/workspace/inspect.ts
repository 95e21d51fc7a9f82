/**
 * What the pipeline page shows about a YAML text, computed on every edit: the engine's diagnostics
 * (parse + validation against the built-in servers, at line and column), the step graph, the front
 * matter, each used tool's description and signature, and the parameter form's fields (the servers'
 * defaults replaced per alias by the pipeline's parameter file, secrets masked; each with plain
 * words and whether a step reads it).
 */
import { findCallable } from "../dsl/catalog.ts";
import { errorsOf, type Diagnostic } from "../dsl/errors.ts";
import { aliasParameters } from "../dsl/params.ts";
import { parsePipeline } from "../dsl/parse.ts";
import { validatePipeline } from "../dsl/validate.ts";
import { readFrontMatter, type FrontMatter } from "../front-matter.ts";
import type { ParamField, PipelineGraph } from "../../shared/pipelines.ts";
import { builtinCatalog, builtinName, builtinSignatures } from "./catalog.ts";
import { pipelineGraph } from "./graph.ts";
import { paramFields, type Secrets } from "./parameters.ts";
import { guideFields } from "./param-reads.ts";
import { toolDoc } from "./tool-docs.ts";

export interface ToolInfo {
  server: string;
  kind: "tool" | "prompt";
  doc: string;
  input: Record<string, string>;
  output: string[];
}

export interface Inspection {
  ok: boolean;
  diagnostics: Diagnostic[];
  graph: PipelineGraph | null;
  meta: FrontMatter | null;
  /** `alias.tool` → what the tool is, for every tool step the servers know. */
  tools: Record<string, ToolInfo>;
  fields: ParamField[];
}

export async function inspectPipeline(
  source: string,
  options: { file: string; parameters: Record<string, unknown>; secrets?: Secrets },
): Promise<Inspection> {
  const catalog = await builtinCatalog();
  const parsed = parsePipeline(source, { file: options.file });
  const pipeline = parsed.pipeline;
  const diagnostics = [...parsed.diagnostics];
  let fields: ParamField[] = [];
  if (pipeline) {
    // `$param`s resolve against the parameter file as they will in a run (server defaults, replaced per alias).
    const effective = aliasParameters(pipeline, catalog, options.parameters);
    fields = paramFields(effective, options.secrets ?? {});
    // A malformed step is dropped from the tree: validating the rest would blame later steps (dsl/index.ts).
    if (errorsOf(diagnostics).length === 0)
      diagnostics.push(...validatePipeline(pipeline, { catalog, parameters: effective }));
  }
  const tools: Record<string, ToolInfo> = {};
  const graph = pipeline ? pipelineGraph(pipeline, catalog) : null;
  if (pipeline) {
    const paths = new Map(pipeline.servers.map((s) => [s.alias, s.path]));
    fields = guideFields(fields, graph, (alias) => builtinName(paths.get(alias) ?? ""));
  }
  if (pipeline && graph) {
    const sigs = await builtinSignatures();
    const paths = new Map(pipeline.servers.map((s) => [s.alias, s.path]));
    for (const node of graph.nodes) {
      if (!node.alias || !node.tool) continue;
      const server = builtinName(paths.get(node.alias) ?? "");
      const sig = server ? sigs.get(server) : undefined;
      const found = sig ? findCallable(sig, node.alias, node.tool) : undefined;
      if (!server || !found || "misplacedPrompt" in found) continue;
      tools[node.label] = {
        server,
        kind: found.kind,
        doc: toolDoc(server, node.tool, found.signature),
        input: found.signature.input,
        output: found.signature.output,
      };
    }
  }
  return {
    ok: !diagnostics.some((d) => d.severity === "error"),
    diagnostics,
    graph,
    meta: readFrontMatter(source),
    tools,
    fields,
  };
}

/** The built-in servers and their tools, for the step picker. */
export async function serverRegistry() {
  const sigs = await builtinSignatures();
  return [...sigs.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([server, sig]) => ({
      server,
      path: `servers/${server}`,
      tools: [
        ...Object.entries(sig.tools).map(([tool, s]) => ({ tool, kind: "tool" as const, ...s })),
        ...Object.entries(sig.prompts).map(([tool, s]) => ({ tool, kind: "prompt" as const, ...s })),
      ].map((t) => ({ ...t, doc: toolDoc(server, t.tool, t) })),
    }));
}
