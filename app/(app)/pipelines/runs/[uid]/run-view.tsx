"use client";
/**
 * A pipeline run: its room's live trace (steps as they start and end, timings, streamed tokens,
 * retrieved sources), the final answer, then the evaluation tables and the per-item cases once it
 * has finished; cancel while it runs; who is watching and the team's chat beside it.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { RotateCcw, Square } from "lucide-react";
import dynamic from "next/dynamic";
import Link from "next/link";
import { useEffect, type ComponentProps } from "react";
import { toast } from "sonner";
import { DetailNotLoaded } from "@/app/_components/query-states.tsx";
import { formatDate } from "@/app/_components/review/format.ts";
import type { ChatPanel as ChatPanelOf } from "@/app/_components/rooms/chat-panel.tsx";
import { PresenceBar } from "@/app/_components/rooms/presence-bar.tsx";
import { useChatRoom } from "@/app/_components/rooms/use-chat-room.ts";
import { BackLink, Button, Card, PageHeader } from "@/app/_components/ui.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { datasetLabel, useRerun } from "../../_components/run-actions.ts";
import { CaseView, EvaluationTables } from "../../_components/run-results.tsx";
import { RunStatus } from "../../_components/run-status.tsx";
import { RunTraceView } from "../../_components/run-trace-view.tsx";
import { galleryHref, pipelineHref } from "../../_components/types.ts";
import { useRunTrace } from "../../_components/use-run-trace.ts";

// The team's chat (with its Markdown) and the YAML of the parameters come in their own chunks after
// the first paint; `ssr: false` gives each its own Suspense boundary (see the workbench).
const ChatPanel = dynamic<ComponentProps<typeof ChatPanelOf<"run">>>(
  () => import("@/app/_components/rooms/chat-panel.tsx").then((m) => m.ChatPanel),
  { ssr: false },
);
/** What a watcher of a run looks at, for the others in its room. */
const WATCHING = { kind: "activity" } as const;
const YamlText = dynamic(() => import("../../_components/yaml-text.tsx").then((m) => m.YamlText), { ssr: false });

export function RunView({ uid }: { uid: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { canEdit, user } = useWorkspace();
  const run = useQuery({
    ...trpc.pipelines.run.queryOptions({ uid }),
    // The room says when it ends; polling is the fallback when the socket cannot connect.
    refetchInterval: (q) => (q.state.data?.status === "running" ? 3000 : false),
  });
  const { room, state, presence } = useChatRoom("run", uid, WATCHING);
  const trace = useRunTrace(state.events);
  const rerun = useRerun();

  // The trace ended (final or error): read the run again for its status, evaluation and cases.
  useEffect(() => {
    if (trace.finished) void queryClient.invalidateQueries({ queryKey: trpc.pipelines.run.queryKey({ uid }) });
  }, [trace.finished, queryClient, trpc, uid]);

  const cancel = useMutation(
    trpc.pipelines.cancelRun.mutationOptions({
      onSuccess: () => toast.success("Cancelling: the run stops before its next step"),
      onError: (err) => toast.error(errorInfo(err).message),
    }),
  );

  const back = <BackLink href="/pipelines">Pipelines</BackLink>;
  if (run.isError || !run.data) return <DetailNotLoaded query={run} back={back} />;
  const r = run.data;
  const status = r.status === "running" && trace.finished ? (trace.error ? "failed" : "completed") : r.status;
  const live = status === "running";
  const answer = trace.answer ?? r.answer;
  const error = trace.error ?? r.error;
  const pipelineLink = r.pipelineUid ? pipelineHref(r.pipelineUid) : r.galleryKey ? galleryHref(r.galleryKey) : null;

  return (
    <>
      {pipelineLink ? <BackLink href={pipelineLink}>{r.pipelineName}</BackLink> : back}
      <PageHeader
        title={`Run of ${r.pipelineName}`}
        description={`Started ${formatDate(r.createdAt)}${r.createdBy ? ` by ${r.createdBy}` : ""} · on ${datasetLabel(r.dataset)}${r.pipelineVersion ? ` · version ${r.pipelineVersion}` : ""}`}
        actions={
          <>
            <PresenceBar members={presence.members} selfId={user.id} />
            {canEdit && live && (
              <Button variant="danger" busy={cancel.isPending} onClick={() => cancel.mutate({ uid })}>
                <Square className="size-4" aria-hidden /> Cancel run
              </Button>
            )}
            {canEdit && !live && (
              <Button
                variant="secondary"
                busy={rerun.isPending}
                onClick={() => rerun.mutate({ uid })}
                title="Run again with this run's version, parameters and data"
              >
                <RotateCcw className="size-4" aria-hidden /> Re-run
              </Button>
            )}
          </>
        }
      />
      <div className="mb-4 flex flex-wrap items-center gap-2 text-sm text-zinc-500">
        <RunStatus status={status} />
        <span>
          {trace.ended} {trace.ended === 1 ? "step" : "steps"} done
          {r.finishedAt ? ` · finished ${formatDate(r.finishedAt)}` : ""}
        </span>
        {r.modelConnection && (
          <span data-testid="run-model" title="The workspace's model connection the model steps used">
            · model {r.modelConnection}
          </span>
        )}
        {!state.connected && live && <span>(connecting to the live trace…)</span>}
      </div>

      <div className="grid gap-6 lg:grid-cols-[1fr_22rem]">
        <div className="min-w-0 space-y-4">
          {error && (
            <div
              role="alert"
              className="rounded-lg border border-amber-200 bg-amber-50 p-4 text-sm text-amber-900 dark:border-amber-900 dark:bg-amber-950/40 dark:text-amber-100"
            >
              {error}
            </div>
          )}
          {answer !== null && answer !== undefined && (
            <Card className="p-4">
              <h2 className="text-sm font-semibold">Final answer</h2>
              <p className="mt-1 text-sm whitespace-pre-wrap" data-testid="final-answer">
                {answer}
              </p>
            </Card>
          )}
          <Card className="p-4">
            <h2 className="mb-1 text-sm font-semibold">Trace</h2>
            <RunTraceView trace={trace} live={live} />
          </Card>
          {!live && r.evaluation.length > 0 && <EvaluationTables tables={r.evaluation} />}
          {!live && r.cases > 0 && <CaseView runUid={uid} count={r.cases} />}
          <details>
            <summary className="cursor-pointer text-sm font-medium">Parameters of this run</summary>
            <pre className="mt-2 max-h-96 overflow-auto rounded bg-zinc-50 p-3 text-xs dark:bg-zinc-950">
              <YamlText value={r.params ?? {}} />
            </pre>
          </details>
          {pipelineLink && (
            <p className="text-sm">
              <Link href={`${pipelineLink}?tab=runs`} className="text-brand-600 hover:underline">
                All runs of {r.pipelineName}
              </Link>
            </p>
          )}
        </div>
        <div className="min-w-0">{room && <ChatPanel room={room} state={state} />}</div>
      </div>
    </>
  );
}
