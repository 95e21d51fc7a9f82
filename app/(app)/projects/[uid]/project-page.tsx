"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useParams, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useState } from "react";
import { ProjectConversations } from "@/app/_components/ask/project-conversations.tsx";
import { ImportPanel } from "@/app/_components/import-panel.tsx";
import { ProjectReviews } from "@/app/_components/review/project-reviews.tsx";
import { StartReviewDialog } from "@/app/_components/review/start-review-dialog.tsx";
import { SnapshotBrowser } from "@/app/_components/snapshot-browser.tsx";
import { toast } from "sonner";
import { BackLink, Badge, Button, Card, ErrorNotice, PageHeader, ProgressBar } from "@/app/_components/ui.tsx";
import { DetailNotLoaded } from "@/app/_components/query-states.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { useHydrated } from "@/app/_lib/use-hydrated.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { formatCount, formatDate } from "@/app/_components/review/format.ts";

const DONE = ["ready", "failed"];

function SnapshotStatus({ snapshotUid }: { snapshotUid: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const snap = useQuery({
    ...trpc.snapshots.get.queryOptions({ snapshotUid }),
    // Poll while the import runs; every viewer of the page sees the same bar.
    refetchInterval: (q) => (q.state.data && DONE.includes(q.state.data.status) ? false : 1000),
  });
  const status = snap.data?.status;
  useEffect(() => {
    if (!status || !DONE.includes(status)) return;
    // The list, and the project's status badge (ingesting → ready / failed) without a reload.
    void queryClient.invalidateQueries({ queryKey: trpc.snapshots.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.projects.pathKey() });
  }, [status, queryClient, trpc]);
  if (!snap.data || DONE.includes(snap.data.status)) return null;
  const pct = Math.round(snap.data.progress * 100);
  return (
    <Card className="mb-6 p-4">
      <p className="text-sm font-medium">Importing {snap.data.sourceLabel}…</p>
      <ProgressBar className="mt-2" fraction={pct / 100} label="Import progress" />
      <p className="mt-1 text-xs text-zinc-500">
        {snap.data.status} · {pct}% {snap.data.message ? `· ${snap.data.message}` : ""}
      </p>
    </Card>
  );
}

function ProjectView() {
  const { uid } = useParams<{ uid: string }>();
  const params = useSearchParams();
  const router = useRouter();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { canEdit } = useWorkspace();
  const project = useQuery(trpc.projects.get.queryOptions({ uid }));
  const snapshots = useQuery(trpc.snapshots.list.queryOptions({ projectUid: uid }));
  const latest = snapshots.data?.[0];
  const ready = snapshots.data?.find((s) => s.status === "ready");
  const selected = snapshots.data?.find((s) => s.uid === params.get("snapshot")) ?? ready;
  const lineParam = Number(params.get("line"));
  const endParam = Number(params.get("end"));
  const [startingReview, setStartingReview] = useState(false);
  // Dates and counts in the server's form until hydrated (app/_lib/use-hydrated.ts).
  const local = useHydrated();
  const refresh = useMutation(
    trpc.snapshots.importGit.mutationOptions({
      onSuccess: () => void snapshots.refetch(),
      onError: (err) => toast.error(errorInfo(err).message),
    }),
  );

  if (project.isError || !project.data || !snapshots.data)
    return <DetailNotLoaded query={project} back={<BackLink href="/projects">Projects</BackLink>} retry={false} />;
  const summary = selected?.summary;
  // A project with no code yet leads with its import; once it has some, the import is at the end.
  const importFirst = !latest;
  const importPanel = canEdit && (
    <div className={importFirst ? "mb-6 max-w-2xl" : "mt-8 max-w-2xl"}>
      <ImportPanel
        projectUid={uid}
        onStarted={() => {
          // The badge says "ingesting" at once; the progress shows at the top.
          void queryClient.invalidateQueries({ queryKey: trpc.projects.get.queryKey({ uid }) });
          void snapshots.refetch().then(() => router.replace(`/projects/${uid}`));
        }}
      />
    </div>
  );

  return (
    <>
      <BackLink href="/projects">Projects</BackLink>
      <PageHeader
        title={project.data.name}
        description={
          selected
            ? `${selected.sourceLabel}${selected.commit ? ` @ ${selected.commit.slice(0, 10)}` : ""} · imported ${formatDate(selected.createdAt, local)}`
            : "No code imported yet"
        }
        actions={
          <>
            {canEdit && project.data.gitUrl && (
              <Button
                variant="secondary"
                busy={refresh.isPending}
                onClick={() =>
                  refresh.mutate({ projectUid: uid, url: project.data.gitUrl!, ref: project.data.gitRef ?? undefined })
                }
              >
                Refresh from git
              </Button>
            )}
            {canEdit && ready && <Button onClick={() => setStartingReview(true)}>Start review</Button>}
            <span data-testid="project-status">
              <Badge tone={project.data.status === "ready" ? "green" : "zinc"}>{project.data.status}</Badge>
            </span>
          </>
        }
      />
      {importFirst && importPanel}
      {latest && !["ready", "failed"].includes(latest.status) && <SnapshotStatus snapshotUid={latest.uid} />}
      {latest?.status === "failed" && (
        <div className="mb-6">
          <ErrorNotice message={`The last import failed: ${latest.message ?? "unknown reason"}`} />
        </div>
      )}
      {summary && (
        <div className="mb-6 flex flex-wrap gap-2 text-sm" aria-label="Language mix">
          <Badge tone="brand">{summary.files} files</Badge>
          <Badge>{formatCount(summary.lines, local)} lines</Badge>
          <Badge>{formatCount(summary.symbols, local)} symbols</Badge>
          {Object.entries(summary.languages)
            .sort((a, b) => b[1].lines - a[1].lines)
            .slice(0, 8)
            .map(([lang, s]) => (
              <Badge key={lang}>
                {lang} {s.files}
              </Badge>
            ))}
          {Object.entries(summary.findingsBySeverity).map(([sev, n]) => (
            <Badge key={sev} tone="amber">
              {n} {sev}
            </Badge>
          ))}
        </div>
      )}
      {selected && (
        <SnapshotBrowser
          projectUid={uid}
          snapshotUid={selected.uid}
          file={params.get("file") ?? undefined}
          line={Number.isFinite(lineParam) && lineParam > 0 ? lineParam : undefined}
          endLine={Number.isFinite(endParam) && endParam > lineParam ? endParam : undefined}
          tab={params.get("tab") === "findings" ? "findings" : "files"}
        />
      )}
      <ProjectConversations
        projectUid={uid}
        snapshotUid={selected?.uid ?? null}
        ready={!!ready}
        // What the teammate looks at: the file open in the code viewer.
        focus={
          selected && params.get("file")
            ? { kind: "file", path: params.get("file")!, ...(lineParam > 0 ? { line: lineParam } : {}) }
            : null
        }
      />
      <ProjectReviews projectUid={uid} />
      <StartReviewDialog open={startingReview} onClose={() => setStartingReview(false)} projectUid={uid} />
      {!importFirst && importPanel}
    </>
  );
}

// No Suspense boundary around the view: every page renders per request (the CSP nonce), so
// useSearchParams never bails out to the client, and a boundary would only make React stream the
// project's view apart from the page (shown by a script, not with the HTML).
export default function ProjectPage() {
  return <ProjectView />;
}
