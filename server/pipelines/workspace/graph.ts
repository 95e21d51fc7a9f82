/**
 * A parsed pipeline as a graph of its steps for the pipeline page: one node per tool step (its
 * inputs and outputs as the tool's signature and the step's remapping make them), a node per loop
 * (edges into its body, a "repeat" edge back, an "exit" edge on) and per branch router (one "case"
 * edge per state to that state's first step; an empty state goes straight on), ending in an `end`
 * node. Node ids follow the tree (`s3`, `s3.0`, `s5.pre.0`, `s5.case.complete.0`), so the same YAML
 * shape gives the same ids and the page keeps its selection while the text changes.
 */
import type { Pipeline, Step, ToolStep } from "../dsl/ast.ts";
import { findCallable, type ServerCatalog } from "../dsl/catalog.ts";
import type { GraphEdge, GraphEdgeKind, GraphNode, PipelineGraph } from "../../shared/pipelines.ts";

/** Where control comes from: a node, and what the edge leaving it says. */
type Pred = { id: string; kind: GraphEdgeKind; label?: string };

export function pipelineGraph(pipeline: Pipeline, catalog: ServerCatalog): PipelineGraph {
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  const paths = new Map(pipeline.servers.map((s) => [s.alias, s.path]));

  const connect = (preds: readonly Pred[], target: string) => {
    for (const p of preds)
      edges.push({
        id: `e${edges.length}`,
        source: p.id,
        target,
        kind: p.kind,
        ...(p.label ? { label: p.label } : {}),
      });
  };

  function toolNode(step: ToolStep, id: string, depth: number, kind?: "branch"): GraphNode {
    const serverPath = paths.get(step.alias);
    const server = serverPath === undefined ? undefined : catalog.lookup(serverPath);
    const found = server ? findCallable(server, step.alias, step.tool) : undefined;
    const signature = found && !("misplacedPrompt" in found) ? found : undefined;
    const remapIn = new Map(step.input.map((p) => [p.key, p.value]));
    const remapOut = new Map(step.output.map((p) => [p.key, p.value]));
    const inputs = signature
      ? Object.entries(signature.signature.input).map(([name, from]) => ({ name, from: remapIn.get(name) ?? from }))
      : step.input.map((p) => ({ name: p.key, from: p.value }));
    const outputs = signature
      ? signature.signature.output.map((name) => ({ name, as: remapOut.get(name) ?? name }))
      : step.output.map((p) => ({ name: p.key, as: p.value }));
    return {
      id,
      kind: kind ?? (signature?.kind === "prompt" ? "prompt" : "tool"),
      label: `${step.alias}.${step.tool}`,
      alias: step.alias,
      tool: step.tool,
      inputs,
      outputs,
      pos: step.pos,
      depth,
      ...(signature ? {} : { unknown: true }),
    };
  }

  function sequence(steps: readonly Step[], prefix: string, depth: number, preds: Pred[]): Pred[] {
    let current = preds;
    steps.forEach((step, i) => {
      const id = `${prefix}${i}`;
      if (step.kind === "tool") {
        nodes.push(toolNode(step, id, depth));
        connect(current, id);
        current = [{ id, kind: "next" }];
      } else if (step.kind === "loop") {
        nodes.push({
          id,
          kind: "loop",
          label: `loop ×${step.times}`,
          inputs: [],
          outputs: [],
          pos: step.pos,
          depth,
        });
        connect(current, id);
        if (step.steps.length > 0) {
          const ends = sequence(step.steps, `${id}.`, depth + 1, [{ id, kind: "next", label: "each pass" }]);
          connect(
            ends.map((e) => ({ ...e, kind: "repeat", label: e.label ? `${e.label} · repeat` : "repeat" })),
            id,
          );
        }
        current = [{ id, kind: "exit", label: `after ${step.times}` }];
      } else {
        const pre = sequence(step.pre, `${id}.pre.`, depth, current);
        nodes.push(toolNode(step.router, id, depth, "branch"));
        connect(pre, id);
        current = step.branches.flatMap((c) =>
          sequence(c.steps, `${id}.case.${c.state}.`, depth + 1, [{ id, kind: "case", label: c.state }]),
        );
      }
    });
    return current;
  }

  const ends = sequence(pipeline.steps, "s", 0, []);
  nodes.push({ id: "end", kind: "end", label: "end", inputs: [], outputs: [], pos: { line: 1, col: 1 }, depth: 0 });
  connect(ends, "end");
  return { nodes, edges };
}
