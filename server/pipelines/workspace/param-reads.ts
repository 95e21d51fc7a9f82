/**
 * Which parameters a pipeline's steps read: a step reads `$name` inputs of its alias (the tool's
 * signature after the step's `input:` remapping, as the graph has them). Fields get plain words and
 * `read: false` when no step of their alias reads their top-level key, so the form can show what
 * matters first. An alias with a step the servers do not know keeps every field (we cannot tell).
 */
import type { ParamField, PipelineGraph } from "../../shared/pipelines.ts";
import { paramWords } from "../../shared/param-guide.ts";

export function readsByAlias(graph: PipelineGraph): Map<string, Set<string> | "unknown"> {
  const reads = new Map<string, Set<string> | "unknown">();
  for (const node of graph.nodes) {
    if (!node.alias) continue;
    if (node.unknown) {
      reads.set(node.alias, "unknown");
      continue;
    }
    let keys = reads.get(node.alias);
    if (keys === "unknown") continue;
    if (!keys) reads.set(node.alias, (keys = new Set()));
    for (const input of node.inputs) if (input.from.startsWith("$")) keys.add(input.from.slice(1));
  }
  return reads;
}

export function guideFields(
  fields: readonly ParamField[],
  graph: PipelineGraph | null,
  serverOf: (alias: string) => string | undefined,
): ParamField[] {
  const reads = graph ? readsByAlias(graph) : undefined;
  return fields.map((f) => {
    const aliasReads = reads?.get(f.alias) ?? new Set<string>();
    const read = !reads || aliasReads === "unknown" || aliasReads.has(f.path[0] ?? "");
    const server = serverOf(f.alias);
    return { ...f, ...paramWords(f.path), read, ...(server ? { server } : {}) };
  });
}
