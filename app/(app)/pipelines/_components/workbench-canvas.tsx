"use client";
/** The pipeline page's graph column: the edit bar (members), the step graph, and the selected step's details. */
import { Card } from "@/app/_components/ui.tsx";
import type { GraphNode, SourcePos } from "@/server/shared/pipelines.ts";
import { CanvasToolbar } from "./canvas-toolbar.tsx";
import { NodeDetails } from "./node-details.tsx";
import type { ParameterFile } from "./params.ts";
import { PipelineGraph, type GraphWatcher } from "./pipeline-graph.tsx";
import type { PipelineInspection } from "./types.ts";

export function WorkbenchCanvas({
  editable,
  workspaceId,
  source,
  onChange,
  inspection,
  parameters,
  node,
  watchers,
  onSelect,
  onShowInYaml,
}: {
  editable: boolean;
  workspaceId: string;
  source: string;
  onChange: (source: string) => void;
  inspection: PipelineInspection;
  parameters: ParameterFile;
  /** The selected step, if any. */
  node: GraphNode | null;
  /** Teammates editing the shared draft, on the step each has selected. */
  watchers?: GraphWatcher[];
  /** Select a step (null: none). */
  onSelect: (id: string | null) => void;
  /** Show the selected step's place in the YAML. */
  onShowInYaml: (pos: SourcePos) => void;
}) {
  return (
    <div className="min-w-0 space-y-3">
      {editable && (
        <CanvasToolbar
          workspaceId={workspaceId}
          source={source}
          selected={node}
          onChange={onChange}
          onDeleted={() => onSelect(null)}
        />
      )}
      {inspection.graph ? (
        <PipelineGraph graph={inspection.graph} selected={node?.id ?? null} onSelect={onSelect} watchers={watchers} />
      ) : (
        <Card className="flex h-[32rem] items-center justify-center p-6 text-center text-sm text-zinc-500">
          The YAML does not parse, so there is no graph to draw: see the problems under the editor.
        </Card>
      )}
      {node && (
        <NodeDetails
          node={node}
          inspection={inspection}
          file={parameters}
          onShowInYaml={() => onShowInYaml({ ...node.pos })}
          onClose={() => onSelect(null)}
        />
      )}
    </div>
  );
}
