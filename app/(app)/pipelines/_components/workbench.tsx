"use client";
/**
 * A pipeline's page: the step graph beside the YAML editor, the parameter form, the run history and
 * (for a workspace pipeline) its versions. Every edit of the YAML or a parameter is validated by the
 * engine on the server 150 ms after typing stops (use-live-inspection.ts); graph, problems and form
 * follow the answer. A
 * gallery pipeline is read-only here: fork it to change it. `?tab=` and `?node=` deep-link.
 */
import { useQuery } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import { useMemo, useState, type ComponentProps } from "react";
import { DetailNotLoaded } from "@/app/_components/query-states.tsx";
import type { ChatPanel as ChatPanelOf } from "@/app/_components/rooms/chat-panel.tsx";
import { PresenceBar } from "@/app/_components/rooms/presence-bar.tsx";
import { useChatRoom } from "@/app/_components/rooms/use-chat-room.ts";
import { BackLink, ConfirmDialog } from "@/app/_components/ui.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import type { ParameterFile } from "./params.ts";
import type { PipelineInspection } from "./types.ts";
import { useLiveInspection } from "./use-live-inspection.ts";
import { usePipelineMutations } from "./use-pipeline-mutations.ts";
import { useSharedDraft } from "./use-shared-draft.ts";
import type { WorkbenchTarget } from "./types.ts";
import { useWorkbenchAddress } from "./use-workbench-address.ts";
import { WorkbenchCanvas } from "./workbench-canvas.tsx";
import { WorkbenchHeader, WorkbenchStatus } from "./workbench-header.tsx";
import { WorkbenchTabs } from "./workbench-tabs.tsx";

// What the page shows at once is the graph and the editor; the rest (the other tabs, the dialogs,
// the team's chat with its Markdown) comes in its own chunks, fetched after the first paint, so the
// scripts that run before the page is interactive are the graph's and the editor's (bench/pipeline-ui).
// `ssr: false` gives each its own Suspense boundary, rendered in the browser only; without one, a
// chunk still loading would hold back the whole page.
// The tabs' chunks are named in workbench-tabs.tsx.
const RunDialog = dynamic(() => import("./run-dialog.tsx").then((m) => m.RunDialog), { ssr: false });
const ForkDialog = dynamic(() => import("./fork-dialog.tsx").then((m) => m.ForkDialog), { ssr: false });
const ChatPanel = dynamic<ComponentProps<typeof ChatPanelOf<"pipeline">>>(
  () => import("@/app/_components/rooms/chat-panel.tsx").then((m) => m.ChatPanel),
  { ssr: false },
);

export type { WorkbenchTarget };

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
  const editable = target.kind === "workspace" && canEdit;
  const { user } = useWorkspace();
  const { tab, nodeId, setParam } = useWorkbenchAddress();
  // A workspace pipeline's page is a room: who is here, and the team's chat (a gallery entry has none).
  const chat = useChatRoom("pipeline", target.kind === "workspace" ? target.uid : "");
  // A workspace pipeline's draft is shared with whoever has this page open (use-shared-draft.ts).
  const draft = useSharedDraft(target, saved, { joined: chat.state.connected, user, node: nodeId });
  const { source, setSource, parameters, dirty } = draft;
  const inspection = useLiveInspection(workspaceId, source, { parameters, initial: saved.inspection })!;
  const [goto, setGoto] = useState<{ line: number; col: number } | null>(null);
  const [running, setRunning] = useState(false);
  const [forking, setForking] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const node = useMemo(() => inspection.graph?.nodes.find((n) => n.id === nodeId) ?? null, [inspection.graph, nodeId]);
  const editors = draft.editing?.editors;
  const watchers = useMemo(
    () => (editors ?? []).flatMap((e) => (e.node ? [{ node: e.node, name: e.name, color: e.color }] : [])),
    [editors],
  );
  const { save, remove } = usePipelineMutations();

  const errors = inspection.diagnostics.filter((d) => d.severity === "error").length;
  const title = inspection.meta?.title ?? name;
  const runBlocked = dirty
    ? "Save your changes first: a run uses the saved version."
    : errors
      ? "Fix the problems first: an invalid pipeline cannot run."
      : null;

  return (
    <>
      <WorkbenchHeader
        title={title}
        description={inspection.meta?.description || undefined}
        presence={chat.room && <PresenceBar members={chat.presence.members} selfId={user.id} />}
        target={target}
        canEdit={canEdit}
        dirty={dirty}
        saving={save.isPending}
        runBlocked={runBlocked}
        onSave={() => {
          // Only a workspace pipeline offers Save version.
          if (target.kind !== "workspace") return;
          if (draft.save) void draft.save();
          else save.mutate({ uid: target.uid, source, parameters });
        }}
        onFork={() => setForking(true)}
        onRun={() => setRunning(true)}
        onDelete={() => setDeleting(true)}
      />
      <WorkbenchStatus
        name={name}
        meta={inspection.meta}
        version={saved.version}
        target={target}
        errors={errors}
        dirty={dirty}
        forkedFrom={forkedFrom}
        runBlocked={runBlocked}
        canEdit={canEdit}
      />

      <div className="grid gap-4 lg:grid-cols-2">
        <WorkbenchCanvas
          editable={editable}
          workspaceId={workspaceId}
          source={source}
          onChange={setSource}
          inspection={inspection}
          parameters={parameters}
          node={node}
          watchers={watchers}
          onSelect={(id) => setParam("node", id)}
          onShowInYaml={(pos) => {
            setParam("tab", null);
            setGoto(pos);
          }}
        />
        <WorkbenchTabs
          tab={tab}
          onTab={(t) => setParam("tab", t === "yaml" ? null : t)}
          target={target}
          editable={editable}
          name={name}
          workspaceId={workspaceId}
          inspection={inspection}
          errors={errors}
          draft={draft}
          goto={goto}
        />
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
