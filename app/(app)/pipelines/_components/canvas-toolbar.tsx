"use client";
/**
 * The graph's edit bar (members, on a workspace pipeline): add a step, a loop or a branch after the
 * selected node (or at the end), delete the selected node. Every edit rewrites the YAML
 * (graph-edits.ts); graph, problems and form follow it like a typed edit. The edits (and the YAML
 * library they use) and the add dialog are loaded when first used, not with the page.
 */
import { GitBranch, Plus, Repeat, Trash2 } from "lucide-react";
import dynamic from "next/dynamic";
import { useState } from "react";
import { toast } from "sonner";
import { Button } from "@/app/_components/ui.tsx";
import type { GraphNode } from "@/server/shared/pipelines.ts";
import type { AddKind } from "./add-step-dialog.tsx";

const AddStepDialog = dynamic(() => import("./add-step-dialog.tsx").then((m) => m.AddStepDialog), { ssr: false });

export function CanvasToolbar({
  workspaceId,
  source,
  selected,
  onChange,
  onDeleted,
}: {
  workspaceId: string;
  source: string;
  /** The node selected on the graph, if any. */
  selected: GraphNode | null;
  onChange: (source: string) => void;
  /** The selected node is gone: clear the selection. */
  onDeleted: () => void;
}) {
  const [adding, setAdding] = useState<AddKind | null>(null);
  const target = selected && selected.id !== "end" ? selected : null;
  const label = target ? (target.kind === "branch" ? `the branch on ${target.label}` : target.label) : null;

  async function remove() {
    if (!target) return;
    const { deleteStep } = await import("./graph-edits.ts");
    const r = deleteStep(source, target.id);
    if (!r.ok) return void toast.error(r.error);
    onChange(r.source);
    onDeleted();
    toast.success(`Deleted ${label}: save a version to keep it, or undo in the editor`);
  }

  return (
    <div className="flex flex-wrap items-center gap-2" role="toolbar" aria-label="Edit the graph">
      <Button variant="secondary" className="text-xs" onClick={() => setAdding("tool")}>
        <Plus className="size-3.5" aria-hidden /> Add step
      </Button>
      <Button variant="secondary" className="text-xs" onClick={() => setAdding("loop")}>
        <Repeat className="size-3.5" aria-hidden /> Add loop
      </Button>
      <Button variant="secondary" className="text-xs" onClick={() => setAdding("branch")}>
        <GitBranch className="size-3.5" aria-hidden /> Add branch
      </Button>
      <Button
        variant="ghost"
        className="text-xs"
        disabled={!target}
        title={target ? undefined : "Select a step on the graph first"}
        onClick={() => void remove()}
      >
        <Trash2 className="size-3.5" aria-hidden />{" "}
        {target
          ? `Delete ${target.kind === "loop" ? "loop" : target.kind === "branch" ? "branch" : "step"}`
          : "Delete step"}
      </Button>
      <span className="text-xs text-zinc-500">
        {label ? `New steps go after ${label}.` : "New steps go at the end."}
      </span>
      {adding && (
        <AddStepDialog
          open
          kind={adding}
          after={target?.id ?? null}
          afterLabel={label}
          onClose={() => setAdding(null)}
          workspaceId={workspaceId}
          source={source}
          onAdd={onChange}
        />
      )}
    </div>
  );
}
