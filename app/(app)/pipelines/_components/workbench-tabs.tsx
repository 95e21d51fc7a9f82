"use client";
/**
 * The pipeline page's tabs beside the graph: YAML, parameters, the assistant (editors only), the run
 * history and the versions (a workspace pipeline's). All but the YAML come in their own chunks.
 */
import dynamic from "next/dynamic";
import { cx } from "@/app/_components/ui.tsx";
import type { SharedEditing } from "@/app/_components/coedit/shared-editing.tsx";
import type { ParameterFile } from "./params.ts";
import type { PipelineInspection } from "./types.ts";
import { TABS, type Tab } from "./use-workbench-address.ts";
import type { WorkbenchTarget } from "./types.ts";
import { YamlEditor } from "./yaml-editor.tsx";

const ParametersTab = dynamic(() => import("./parameters-tab.tsx").then((m) => m.ParametersTab), { ssr: false });
const AssistantPanel = dynamic(() => import("./assistant-panel.tsx").then((m) => m.AssistantPanel), { ssr: false });
const RunHistory = dynamic(() => import("./run-history.tsx").then((m) => m.RunHistory), { ssr: false });
const VersionsPanel = dynamic(() => import("./versions-panel.tsx").then((m) => m.VersionsPanel), { ssr: false });

const TAB_LABEL: Record<Tab, string> = {
  yaml: "YAML",
  parameters: "Parameters",
  assistant: "Assistant",
  runs: "Runs",
  versions: "Versions",
};
/** Tabs only an editable workspace pipeline has. */
const EDIT_TABS: readonly Tab[] = ["assistant"];

export function WorkbenchTabs({
  tab,
  onTab,
  target,
  editable,
  name,
  workspaceId,
  inspection,
  errors,
  draft,
  goto,
}: {
  tab: Tab;
  onTab: (tab: Tab) => void;
  target: WorkbenchTarget;
  editable: boolean;
  name: string;
  workspaceId: string;
  inspection: PipelineInspection;
  /** The problems the engine found (counted on the YAML tab). */
  errors: number;
  /** The draft being edited (use-shared-draft.ts). */
  draft: {
    source: string;
    setSource: (source: string) => void;
    parameters: ParameterFile;
    setParameters: (parameters: ParameterFile) => void;
    editing: SharedEditing | null;
  };
  /** A place in the YAML to show (Show in YAML on a step). */
  goto: { line: number; col: number } | null;
}) {
  const { source, setSource, parameters, setParameters } = draft;
  return (
    <div className="min-w-0">
      <div
        role="tablist"
        aria-label="Pipeline"
        className="mb-3 flex gap-1 overflow-x-auto border-b border-zinc-200 dark:border-zinc-800"
      >
        {TABS.filter(
          (t) => (t !== "versions" || target.kind === "workspace") && (editable || !EDIT_TABS.includes(t)),
        ).map((t) => (
          <button
            key={t}
            type="button"
            role="tab"
            id={`tab-${t}`}
            aria-selected={tab === t}
            aria-controls={`panel-${t}`}
            onClick={() => onTab(t)}
            className={cx(
              "-mb-px border-b-2 px-3 py-1.5 text-sm font-medium",
              tab === t
                ? "border-brand-600 text-brand-700 dark:text-brand-300"
                : "border-transparent text-zinc-500 hover:text-zinc-800 dark:hover:text-zinc-200",
            )}
          >
            {TAB_LABEL[t]}
            {t === "yaml" && errors > 0 && <span className="ml-1 text-red-600">({errors})</span>}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`}>
        {tab === "yaml" && (
          <>
            {!editable && (
              <p className="mb-2 text-xs text-zinc-500">
                {target.kind === "gallery"
                  ? "The gallery's pipelines are read-only: fork one to edit it."
                  : "Viewers read pipelines; members edit them."}
              </p>
            )}
            <YamlEditor
              label="Pipeline YAML"
              value={source}
              onChange={setSource}
              readOnly={!editable}
              diagnostics={inspection.diagnostics}
              goto={goto}
              shared={draft.editing}
            />
          </>
        )}
        {tab === "parameters" && (
          <ParametersTab
            name={name}
            fields={inspection.fields}
            file={parameters}
            onChange={setParameters}
            readOnly={!editable}
          />
        )}
        {tab === "assistant" && editable && target.kind === "workspace" && (
          <AssistantPanel
            workspaceId={workspaceId}
            uid={target.uid}
            source={source}
            parameters={parameters}
            onAccept={(nextSource, nextParameters) => {
              setSource(nextSource);
              setParameters(nextParameters);
            }}
          />
        )}
        {tab === "runs" && (
          <RunHistory
            workspaceId={workspaceId}
            {...(target.kind === "workspace" ? { pipelineUid: target.uid } : { galleryKey: target.key })}
          />
        )}
        {tab === "versions" && target.kind === "workspace" && <VersionsPanel uid={target.uid} />}
      </div>
    </div>
  );
}
