"use client";
/**
 * A pipeline's page: the step graph beside the YAML editor, the parameter form, the run history and
 * (for a workspace pipeline) its versions. Every edit of the YAML or a parameter is validated by the
 * engine on the server 150 ms after typing stops (use-live-inspection.ts); graph, problems and form
 * follow the answer. A
 * gallery pipeline is read-only here: fork it to change it. `?tab=` and `?node=` deep-link.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { GitFork, Play, Save, Trash2 } from "lucide-react";
import dynamic from "next/dynamic";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useMemo, useState, type ComponentProps } from "react";
import { toast } from "sonner";
import { DetailNotLoaded } from "@/app/_components/query-states.tsx";
import type { ChatPanel as ChatPanelOf } from "@/app/_components/rooms/chat-panel.tsx";
import { PresenceBar } from "@/app/_components/rooms/presence-bar.tsx";
import { useChatRoom } from "@/app/_components/rooms/use-chat-room.ts";
import { BackLink, Badge, Button, Card, ConfirmDialog, PageHeader, cx } from "@/app/_components/ui.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { CanvasToolbar } from "./canvas-toolbar.tsx";
import { NodeDetails } from "./node-details.tsx";
import type { ParameterFile } from "./params.ts";
import { PipelineGraph } from "./pipeline-graph.tsx";
import { needsLabel, type PipelineInspection } from "./types.ts";
import { useLiveInspection } from "./use-live-inspection.ts";
import { useSharedDraft } from "./use-shared-draft.ts";
import { YamlEditor } from "./yaml-editor.tsx";

// What the page shows at once is the graph and the editor; the rest (the other tabs, the dialogs,
// the team's chat with its Markdown) comes in its own chunks, fetched after the first paint, so the
// scripts that run before the page is interactive are the graph's and the editor's (bench/pipeline-ui).
// `ssr: false` gives each its own Suspense boundary (this page is never server-rendered: the shell
// waits for the session); without one, a chunk still loading would hold back the whole page.
const ParametersTab = dynamic(() => import("./parameters-tab.tsx").then((m) => m.ParametersTab), { ssr: false });
const AssistantPanel = dynamic(() => import("./assistant-panel.tsx").then((m) => m.AssistantPanel), { ssr: false });
const RunHistory = dynamic(() => import("./run-history.tsx").then((m) => m.RunHistory), { ssr: false });
const VersionsPanel = dynamic(() => import("./versions-panel.tsx").then((m) => m.VersionsPanel), { ssr: false });
const RunDialog = dynamic(() => import("./run-dialog.tsx").then((m) => m.RunDialog), { ssr: false });
const ForkDialog = dynamic(() => import("./fork-dialog.tsx").then((m) => m.ForkDialog), { ssr: false });
const ChatPanel = dynamic<ComponentProps<typeof ChatPanelOf<"pipeline">>>(
  () => import("@/app/_components/rooms/chat-panel.tsx").then((m) => m.ChatPanel),
  { ssr: false },
);

export type WorkbenchTarget = { kind: "workspace"; uid: string } | { kind: "gallery"; key: string };

const TABS = ["yaml", "parameters", "assistant", "runs", "versions"] as const;
type Tab = (typeof TABS)[number];
const TAB_LABEL: Record<Tab, string> = {
  yaml: "YAML",
  parameters: "Parameters",
  assistant: "Assistant",
  runs: "Runs",
  versions: "Versions",
};
/** Tabs only an editable workspace pipeline has. */
const EDIT_TABS: readonly Tab[] = ["assistant"];

export function PipelineWorkbench({ target }: { target: WorkbenchTarget }) {
  const trpc = useTRPC();
  const { workspace, canEdit } = useWorkspace();
  const pipeline = useQuery({
    ...trpc.pipelines.get.queryOptions({ uid: target.kind === "workspace" ? target.uid : "" }),
    enabled: target.kind === "workspace",
  });
  const gallery = useQuery({
    ...trpc.pipelines.gallery.queryOptions({
      workspaceId: workspace.id,
      key: target.kind === "gallery" ? target.key : "",
    }),
    enabled: target.kind === "gallery",
  });
  const query = target.kind === "workspace" ? pipeline : gallery;
  const back = <BackLink href="/pipelines">Pipelines</BackLink>;
  if (query.isError && errorInfo(query.error).status === 404)
    // Trying again cannot bring back a pipeline that is not there: the way on is the gallery.
    return (
      <DetailNotLoaded query={query} back={<BackLink href="/pipelines">Back to the gallery</BackLink>} retry={false} />
    );
  if (query.isError || !query.data) return <DetailNotLoaded query={query} back={back} />;
  const data = query.data;
  const saved = {
    source: data.source,
    parameters: data.parameters as ParameterFile,
    inspection: data.inspection,
    version: "version" in data ? data.version : null,
  };
  return (
    <>
      {back}
      <Loaded
        key={`${target.kind}:${saved.version ?? ""}`}
        target={target}
        saved={saved}
        name={data.name}
        forkedFrom={"forkedFrom" in data ? data.forkedFrom : null}
        workspaceId={workspace.id}
        canEdit={canEdit}
      />
    </>
  );
}

function Loaded({
  target,
  saved,
  name,
  forkedFrom,
  workspaceId,
  canEdit,
}: {
  target: WorkbenchTarget;
  saved: { source: string; parameters: ParameterFile; inspection: PipelineInspection; version: number | null };
  name: string;
  forkedFrom: string | null;
  workspaceId: string;
  canEdit: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  const editable = target.kind === "workspace" && canEdit;
  const { user } = useWorkspace();
  // A workspace pipeline's page is a room: who is here, and the team's chat (a gallery entry has none).
  const chat = useChatRoom("pipeline", target.kind === "workspace" ? target.uid : "");
  // A workspace pipeline's draft is shared with whoever has this page open (use-shared-draft.ts).
  const draft = useSharedDraft(target, saved, { joined: chat.state.connected, user, node: search.get("node") });
  const { source, setSource, parameters, setParameters, dirty } = draft;
  const inspection = useLiveInspection(workspaceId, source, { parameters, initial: saved.inspection })!;
  const [goto, setGoto] = useState<{ line: number; col: number } | null>(null);
  const [running, setRunning] = useState(false);
  const [forking, setForking] = useState(false);
  const [deleting, setDeleting] = useState(false);

  const tab: Tab = (TABS as readonly string[]).includes(search.get("tab") ?? "") ? (search.get("tab") as Tab) : "yaml";
  const nodeId = search.get("node");
  const setParam = useCallback(
    (key: string, value: string | null) => {
      const next = new URLSearchParams(search.toString());
      if (value === null) next.delete(key);
      else next.set(key, value);
      const qs = next.toString();
      router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
    },
    [pathname, router, search],
  );
  const node = useMemo(() => inspection.graph?.nodes.find((n) => n.id === nodeId) ?? null, [inspection.graph, nodeId]);

  const save = useMutation(
    trpc.pipelines.save.mutationOptions({
      onSuccess: async (r) => {
        if (r.valid) toast.success(`Saved version ${r.version}`);
        else
          toast.warning(
            `Saved version ${r.version} as a draft: ${r.errors} ${r.errors === 1 ? "error" : "errors"} to fix before it can run`,
          );
        await queryClient.invalidateQueries({ queryKey: trpc.pipelines.pathKey() });
      },
      onError: (err) => toast.error(errorInfo(err).message),
    }),
  );
  const remove = useMutation(
    trpc.pipelines.delete.mutationOptions({
      onSuccess: async () => {
        toast.success("Pipeline deleted");
        router.push("/pipelines");
        await queryClient.invalidateQueries({ queryKey: trpc.pipelines.pathKey() });
      },
      onError: (err) => toast.error(errorInfo(err).message),
    }),
  );

  const errors = inspection.diagnostics.filter((d) => d.severity === "error").length;
  const title = inspection.meta?.title ?? name;
  const runBlocked = dirty
    ? "Save your changes first: a run uses the saved version."
    : errors
      ? "Fix the problems first: an invalid pipeline cannot run."
      : null;

  return (
    <>
      <PageHeader
        title={title}
        description={inspection.meta?.description || undefined}
        actions={
          <>
            {chat.room && <PresenceBar members={chat.presence.members} selfId={user.id} />}
            {canEdit && (
              <>
                {target.kind === "workspace" && (
                  <Button
                    variant="secondary"
                    busy={save.isPending}
                    disabled={!dirty}
                    onClick={() =>
                      draft.save ? void draft.save() : save.mutate({ uid: target.uid, source, parameters })
                    }
                  >
                    <Save className="size-4" aria-hidden /> Save version
                  </Button>
                )}
                {target.kind === "gallery" && (
                  <Button variant="secondary" onClick={() => setForking(true)}>
                    <GitFork className="size-4" aria-hidden /> Fork to edit
                  </Button>
                )}
                <Button
                  onClick={() => setRunning(true)}
                  disabled={Boolean(runBlocked)}
                  title={runBlocked ?? undefined}
                  aria-describedby={runBlocked ? "run-blocked" : undefined}
                >
                  <Play className="size-4" aria-hidden /> Run
                </Button>
                {target.kind === "workspace" && (
                  <Button variant="ghost" aria-label="Delete pipeline" onClick={() => setDeleting(true)}>
                    <Trash2 className="size-4" aria-hidden />
                  </Button>
                )}
              </>
            )}
          </>
        }
      />
      <div className="mb-4 flex flex-wrap items-center gap-2 text-sm text-zinc-500">
        <span className="font-mono">{name}.yaml</span>
        <Badge tone={inspection.meta?.needs === "none" || !inspection.meta ? "green" : "amber"}>
          {needsLabel(inspection.meta?.needs)}
        </Badge>
        {target.kind === "gallery" ? <Badge>gallery</Badge> : <Badge>version {saved.version}</Badge>}
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

      <div className="grid gap-4 lg:grid-cols-2">
        <div className="min-w-0 space-y-3">
          {editable && (
            <CanvasToolbar
              workspaceId={workspaceId}
              source={source}
              selected={node}
              onChange={setSource}
              onDeleted={() => setParam("node", null)}
            />
          )}
          {inspection.graph ? (
            <PipelineGraph
              graph={inspection.graph}
              selected={node?.id ?? null}
              onSelect={(id) => setParam("node", id)}
            />
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
              onShowInYaml={() => {
                setParam("tab", null);
                setGoto({ ...node.pos });
              }}
              onClose={() => setParam("node", null)}
            />
          )}
        </div>
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
                onClick={() => setParam("tab", t === "yaml" ? null : t)}
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
      </div>

      {chat.room && <ChatPanel room={chat.room} state={chat.state} className="mt-6" />}

      <RunDialog
        open={running}
        onClose={() => setRunning(false)}
        target={target.kind === "workspace" ? { uid: target.uid } : { workspaceId, key: target.key }}
      />
      {target.kind === "gallery" && (
        <ForkDialog open={forking} onClose={() => setForking(false)} galleryKey={target.key} />
      )}
      {target.kind === "workspace" && (
        <ConfirmDialog
          open={deleting}
          onClose={() => setDeleting(false)}
          onConfirm={() => remove.mutate({ uid: target.uid })}
          busy={remove.isPending}
          title="Delete pipeline?"
          body={<>“{title}” and its versions will be deleted; its runs stay in the history.</>}
          confirmLabel="Delete pipeline"
        />
      )}
    </>
  );
}
