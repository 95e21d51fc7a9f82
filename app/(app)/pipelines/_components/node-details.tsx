"use client";
/** What a selected step is: its tool's description and signature, and the parameter values its `$` inputs read. */
import { Card, Button } from "@/app/_components/ui.tsx";
import type { GraphNode, ParamField } from "@/server/shared/pipelines.ts";
import type { PipelineInspection } from "./types.ts";
import { valueIn, type ParameterFile } from "./params.ts";

const show = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));

export function NodeDetails({
  node,
  inspection,
  file,
  onShowInYaml,
  onClose,
}: {
  node: GraphNode;
  inspection: PipelineInspection;
  file: ParameterFile;
  onShowInYaml: () => void;
  onClose: () => void;
}) {
  const tool = inspection.tools[node.label];
  const param = (name: string): ParamField | undefined =>
    inspection.fields.find((f) => f.alias === node.alias && f.path.length === 1 && f.path[0] === name);
  return (
    <section aria-label="Step details">
      <Card className="p-4">
        <div className="flex flex-wrap items-start justify-between gap-2">
          <div className="min-w-0">
            <h3 className="font-mono text-sm font-semibold">{node.label}</h3>
            <p className="text-xs text-zinc-500">
              {node.kind === "loop"
                ? "A loop: its steps run again for every pass."
                : node.kind === "branch"
                  ? `A branch: ${tool?.server ?? ""} router decides each item's state.`
                  : node.kind === "end"
                    ? "The end of the pipeline."
                    : `${tool?.kind === "prompt" ? "Prompt" : "Tool"} of servers/${tool?.server ?? "?"}`}{" "}
              · line {node.pos.line}
            </p>
          </div>
          <div className="flex gap-2">
            {node.kind !== "end" && (
              <Button variant="secondary" className="text-xs" onClick={onShowInYaml}>
                Show in YAML
              </Button>
            )}
            <Button variant="ghost" className="text-xs" onClick={onClose} aria-label="Close step details">
              ✕
            </Button>
          </div>
        </div>
        {tool && <p className="mt-2 text-sm">{tool.doc}</p>}
        {node.unknown && node.kind !== "loop" && node.kind !== "end" && (
          <p className="mt-2 text-sm text-red-600 dark:text-red-400">
            The server has no such tool: see the problems under the YAML.
          </p>
        )}
        {node.inputs.length > 0 && (
          <div className="mt-3">
            <h4 className="text-xs font-medium uppercase tracking-wide text-zinc-500">Reads</h4>
            <ul className="mt-1 space-y-0.5 font-mono text-xs">
              {node.inputs.map((i) => {
                const p = i.from.startsWith("$") ? param(i.from.slice(1)) : undefined;
                const value = p
                  ? ` = ${p.secret ? (p.set ? "•••• (stored)" : "(not set)") : show(valueIn(file, p))}`
                  : "";
                return <li key={i.name}>{`${i.name} ← ${i.from}${value}`}</li>;
              })}
            </ul>
          </div>
        )}
        {node.outputs.length > 0 && (
          <div className="mt-3">
            <h4 className="text-xs font-medium uppercase tracking-wide text-zinc-500">Writes</h4>
            <ul className="mt-1 font-mono text-xs">
              {node.outputs.map((o) => (
                <li key={o.name}>
                  {o.as}
                  {o.as !== o.name && <span className="text-zinc-500"> (output {o.name})</span>}
                </li>
              ))}
            </ul>
          </div>
        )}
      </Card>
    </section>
  );
}
