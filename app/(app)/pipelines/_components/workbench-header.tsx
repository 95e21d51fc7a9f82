"use client";
/** The pipeline page's header: its title and actions (save, fork, run, delete), and the status line under it. */
import { GitFork, Play, Save, Trash2 } from "lucide-react";
import type { ReactNode } from "react";
import { Badge, Button, PageHeader } from "@/app/_components/ui.tsx";
import { needsLabel, type PipelineInspection } from "./types.ts";
import type { WorkbenchTarget } from "./types.ts";

export function WorkbenchHeader({
  title,
  description,
  presence,
  target,
  canEdit,
  dirty,
  saving,
  runBlocked,
  onSave,
  onFork,
  onRun,
  onDelete,
}: {
  title: string;
  description: string | undefined;
  /** Who is here (a workspace pipeline's room; nothing for a gallery entry). */
  presence: ReactNode;
  target: WorkbenchTarget;
  canEdit: boolean;
  dirty: boolean;
  saving: boolean;
  /** Why Run is off, if it is. */
  runBlocked: string | null;
  onSave: () => void;
  onFork: () => void;
  onRun: () => void;
  onDelete: () => void;
}) {
  return (
    <PageHeader
      title={title}
      description={description}
      actions={
        <>
          {presence}
          {canEdit && (
            <>
              {target.kind === "workspace" && (
                <Button variant="secondary" busy={saving} disabled={!dirty} onClick={onSave}>
                  <Save className="size-4" aria-hidden /> Save version
                </Button>
              )}
              {target.kind === "gallery" && (
                <Button variant="secondary" onClick={onFork}>
                  <GitFork className="size-4" aria-hidden /> Fork to edit
                </Button>
              )}
              <Button
                onClick={onRun}
                disabled={Boolean(runBlocked)}
                title={runBlocked ?? undefined}
                aria-describedby={runBlocked ? "run-blocked" : undefined}
              >
                <Play className="size-4" aria-hidden /> Run
              </Button>
              {target.kind === "workspace" && (
                <Button variant="ghost" aria-label="Delete pipeline" onClick={onDelete}>
                  <Trash2 className="size-4" aria-hidden />
                </Button>
              )}
            </>
          )}
        </>
      }
    />
  );
}

/** The line under the title: file name, what it needs, which version, its problems, unsaved changes. */
export function WorkbenchStatus({
  name,
  meta,
  version,
  target,
  errors,
  dirty,
  forkedFrom,
  runBlocked,
  canEdit,
}: {
  name: string;
  meta: PipelineInspection["meta"];
  version: number | null;
  target: WorkbenchTarget;
  errors: number;
  dirty: boolean;
  forkedFrom: string | null;
  runBlocked: string | null;
  canEdit: boolean;
}) {
  return (
    <div className="mb-4 flex flex-wrap items-center gap-2 text-sm text-zinc-500">
      <span className="font-mono">{name}.yaml</span>
      <Badge tone={meta?.needs === "none" || !meta ? "green" : "amber"}>{needsLabel(meta?.needs)}</Badge>
      {target.kind === "gallery" ? <Badge>gallery</Badge> : <Badge>version {version}</Badge>}
      {errors ? (
        <Badge tone="amber">
          {errors} {errors === 1 ? "problem" : "problems"}
        </Badge>
      ) : (
        <Badge tone="green">valid</Badge>
      )}
      {dirty && <Badge tone="brand">unsaved changes</Badge>}
      {forkedFrom && <span>forked from {forkedFrom}</span>}
      {runBlocked && canEdit && (
        <span id="run-blocked" className="text-xs">
          {runBlocked}
        </span>
      )}
    </div>
  );
}
