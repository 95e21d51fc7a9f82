"use client";
/**
 * One review: header (project, engine, status, timings, usage, actions, exports), live activity while
 * it runs, then summary, scores, noise-control stage counts, findings and files at risk.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Download, RotateCcw, Square, Trash2 } from "lucide-react";
import Link from "next/link";
import { useParams, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useEffect, useMemo, useState } from "react";
import { toast } from "sonner";
import { ActivityPanel } from "@/app/_components/review/activity-panel.tsx";
import { ChatPanel } from "@/app/_components/rooms/chat-panel.tsx";
import { FindingTeam, TeamBadges } from "@/app/_components/rooms/finding-team.tsx";
import { PresenceBar, WatchersOf } from "@/app/_components/rooms/presence-bar.tsx";
import { SteeringBar } from "@/app/_components/rooms/steering-bar.tsx";
import { foldTeamEvents } from "@/server/shared/team-state.ts";
import { confirmedByTeam, teamVerdict } from "@/server/shared/team-verdicts.ts";
import { usePresence } from "@/app/_components/rooms/use-presence.ts";
import { useRoom } from "@/app/_lib/room.ts";
import { roomNameOrNull } from "@/server/shared/rooms.ts";
import { ScoreChip, StatusPill } from "@/app/_components/review/badges.tsx";
import { FilesAtRisk } from "@/app/_components/review/files-at-risk.tsx";
import { FindingsList } from "@/app/_components/review/findings-list.tsx";
import {
  codeHref,
  engineLabel,
  formatCost,
  formatDate,
  formatDuration,
  formatTokens,
  scopeLabel,
} from "@/app/_components/review/format.ts";
import { describeStages } from "@/server/shared/stages.ts";
import { Markdown } from "@/app/_components/review/markdown.tsx";
import { isActive, type ReviewDetail, type ReviewFindingRow } from "@/app/_components/review/types.ts";
import {
  BackLink,
  Button,
  Card,
  ConfirmDialog,
  DelayedSkeleton,
  ErrorNotice,
  PageHeader,
  ProgressBar,
} from "@/app/_components/ui.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";

const POLL_MS = 2000;

function Meta({ review }: { review: ReviewDetail }) {
  const started = review.startedAt ? new Date(review.startedAt).getTime() : null;
  const finished = review.finishedAt ? new Date(review.finishedAt).getTime() : null;
  const u = review.usage;
  const items: [string, string][] = [
    ["Engine", review.report?.engineLabel ?? engineLabel(review)],
    ["Scope", scopeLabel(review.scope)],
    ...(review.promptName ? ([["Prompt", review.promptName]] as [string, string][]) : []),
    ["Created", formatDate(review.createdAt)],
    [
      "Duration",
      started ? formatDuration((finished ?? Date.now()) - started) + (finished ? "" : " so far") : "not started",
    ],
    ...(u
      ? ([
          [
            "Usage",
            `${formatTokens(u.inputTokens)} in · ${formatTokens(u.outputTokens)} out${u.iterations ? ` · ${u.iterations} iterations` : ""}${formatCost(u.costUsd) ? ` · ${formatCost(u.costUsd)}` : ""}`,
          ],
        ] as [string, string][])
      : []),
  ];
  return (
    <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-3">
      {items.map(([k, v]) => (
        <div key={k}>
          <dt className="text-xs text-zinc-500">{k}</dt>
          <dd className="truncate" title={v}>
            {v}
          </dd>
        </div>
      ))}
    </dl>
  );
}

function Scores({ report }: { report: NonNullable<ReviewDetail["report"]> }) {
  const categories = Object.entries(report.categoryScores).sort((a, b) => (a[1] ?? 0) - (b[1] ?? 0));
  return (
    <Card className="flex flex-wrap items-center gap-6 p-4" aria-label="Scores">
      <div className="text-center">
        <p className="text-3xl">
          <ScoreChip score={report.overallScore} label="Overall score (0–100, higher is better)" />
        </p>
        <p className="text-xs text-zinc-500">
          {report.computedScores?.includes("overall") ? "overall · computed by Argus" : "overall"}
        </p>
      </div>
      <ul className="flex flex-1 flex-wrap gap-x-6 gap-y-2">
        {categories.map(([c, s]) => (
          <li key={c} className="min-w-28">
            <p className="text-xs capitalize text-zinc-500">{c}</p>
            <div className="flex items-center gap-2">
              <div className="h-1.5 w-20 overflow-hidden rounded bg-zinc-200 dark:bg-zinc-800">
                <div className="h-full bg-brand-600" style={{ width: `${Math.max(0, Math.min(100, s ?? 0))}%` }} />
              </div>
              <ScoreChip score={s} />
            </div>
          </li>
        ))}
      </ul>
    </Card>
  );
}

export default function ReviewPage() {
  const { uid } = useParams<{ uid: string }>();
  // A link to a finding's thread (the inbox) opens that finding.
  const linkedFinding = useSearchParams().get("finding");
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const { canEdit, user } = useWorkspace();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [pendingFp, setPendingFp] = useState<string | null>(null);

  const review = useQuery({
    ...trpc.reviews.get.queryOptions({ uid }),
    refetchInterval: (q) => (q.state.data && isActive(q.state.data.status) ? POLL_MS : false),
  });
  const status = review.data?.status;
  const roomName = roomNameOrNull("review", uid);
  // One join of the review's room for the page: the activity log and the chat share it.
  const room = useRoom(review.data ? roomName : null);
  const projectUid = review.data?.projectUid;
  const snapshotUid = review.data?.snapshotUid ?? null;
  const presence = usePresence(roomName, room);
  const codeLink = useCallback(
    (path: string, line: number, endLine?: number) => codeHref(projectUid ?? "", snapshotUid, path, line, endLine),
    [projectUid, snapshotUid],
  );
  const live = !!status && isActive(status);
  const findingsKey = trpc.reviews.findings.queryKey({ reviewUid: uid });
  const findings = useQuery({
    ...trpc.reviews.findings.queryOptions({ reviewUid: uid }),
    enabled: status === "completed",
  });
  // The findings as loaded, brought up to date by the room's votes, resolutions, threads and marks.
  const teamState = useMemo(() => foldTeamEvents(room.events), [room.events]);
  const teamFindings = useMemo(
    () => (findings.data ?? []).map((f) => ({ ...f, ...teamState.get(f.fingerprint) })),
    [findings.data, teamState],
  );
  const confirmed = useMemo(() => confirmedByTeam(teamFindings), [teamFindings]);

  useEffect(() => {
    // The review just finished: load its findings and refresh lists that show it.
    if (status && !isActive(status)) void queryClient.invalidateQueries({ queryKey: trpc.reviews.list.pathKey() });
  }, [status, queryClient, trpc]);

  const onError = (err: unknown) => toast.error(errorInfo(err).message);
  const cancel = useMutation(trpc.reviews.cancel.mutationOptions({ onSuccess: () => void review.refetch(), onError }));
  const rerun = useMutation(
    trpc.reviews.rerun.mutationOptions({
      onSuccess: (r) => {
        toast.success("Review started again");
        router.push(`/reviews/${r.uid}`);
      },
      onError,
    }),
  );
  const remove = useMutation(
    trpc.reviews.remove.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.reviews.list.pathKey() });
        toast.success("Review deleted");
        router.replace("/reviews");
      },
      onError: (err) => {
        setConfirmDelete(false);
        onError(err);
      },
    }),
  );
  const setDismissed = (f: ReviewFindingRow, dismissed: boolean) =>
    queryClient.setQueryData<ReviewFindingRow[]>(findingsKey, (rows) =>
      rows?.map((r) => (r.fingerprint === f.fingerprint ? { ...r, dismissed } : r)),
    );
  const dismiss = useMutation(trpc.reviews.dismiss.mutationOptions());
  const undismiss = useMutation(trpc.reviews.undismiss.mutationOptions());
  async function toggleDismiss(f: ReviewFindingRow, dismissed: boolean) {
    setPendingFp(f.fingerprint);
    try {
      await (dismissed ? dismiss : undismiss).mutateAsync({ reviewUid: uid, fingerprint: f.fingerprint });
      setDismissed(f, dismissed);
      toast.success(
        dismissed
          ? "Marked as false positive — later reviews of this project will not raise it again"
          : "Finding restored",
      );
    } catch (err) {
      onError(err);
    } finally {
      setPendingFp(null);
    }
  }

  const back = <BackLink href="/reviews">Reviews</BackLink>;
  if (review.isError) {
    return (
      <>
        {back}
        <ErrorNotice
          message={errorInfo(review.error).message}
          onRetry={errorInfo(review.error).status === 404 ? undefined : () => review.refetch()}
        />
      </>
    );
  }
  if (!review.data) return <DelayedSkeleton rows={4} />;
  const r = review.data;
  const report = r.report;
  const exportHref = (format: string) => `/api/reviews/${r.uid}/export?format=${format}`;

  return (
    <>
      {back}
      <PageHeader
        title={`Review of ${r.projectName}`}
        description={`${engineLabel(r)} · ${scopeLabel(r.scope)}`}
        actions={
          <>
            <PresenceBar members={presence.members} selfId={user.id} />
            <StatusPill status={r.status} progress={r.progress} />
            {canEdit && live && (
              <Button variant="secondary" busy={cancel.isPending} onClick={() => cancel.mutate({ uid: r.uid })}>
                <Square className="size-3.5" aria-hidden /> Cancel
              </Button>
            )}
            {canEdit && !live && (
              <Button variant="secondary" busy={rerun.isPending} onClick={() => rerun.mutate({ uid: r.uid })}>
                <RotateCcw className="size-3.5" aria-hidden /> Re-run
              </Button>
            )}
            {canEdit && !live && (
              <Button variant="ghost" aria-label="Delete review" onClick={() => setConfirmDelete(true)}>
                <Trash2 className="size-4" aria-hidden />
              </Button>
            )}
          </>
        }
      />
      <p className="-mt-4 mb-5 text-sm">
        <Link href={`/projects/${r.projectUid}`} className="text-brand-600 hover:underline">
          {r.projectName}
        </Link>
      </p>
      <Card className="mb-6 p-4">
        <Meta review={r} />
        {r.status === "running" && <ProgressBar className="mt-3" fraction={r.progress} label="Review progress" />}
        {r.statusReason && (r.status === "failed" || r.status === "cancelled") && (
          <p
            className={
              r.status === "failed" ? "mt-3 text-sm text-red-700 dark:text-red-400" : "mt-3 text-sm text-zinc-500"
            }
          >
            {r.statusReason}
          </p>
        )}
      </Card>

      {roomName && live && r.engine === "agent" && (
        <div className="mb-4">
          <SteeringBar room={roomName} state={room} steering={r.steering} canSteer={canEdit} />
        </div>
      )}
      {r.steering.stopRequested && !live && (
        <p className="-mt-2 mb-4 text-sm text-zinc-600" role="note">
          Stopped early by {r.steering.stopRequested.by.name}: the report covers what was explored until then.
        </p>
      )}
      <div className="mb-6 grid gap-4 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        {live || r.engine === "agent" ? (
          <div onMouseEnter={() => presence.setFocus({ kind: "activity" })}>
            <ActivityPanel reviewUid={r.uid} live={live} room={room} />
          </div>
        ) : (
          <div className="hidden lg:block" />
        )}
        {roomName && <ChatPanel room={roomName} state={room} codeLink={codeLink} />}
      </div>

      {report && (
        <>
          <div className="mb-6 flex flex-wrap items-center gap-2" aria-label="Export">
            <span className="text-sm text-zinc-500">Export</span>
            {[
              ["md", "Markdown"],
              ["sarif", "SARIF"],
              ["json", "JSON"],
            ].map(([format, label]) => (
              <a
                key={format}
                href={exportHref(format!)}
                download
                className="inline-flex items-center gap-1 rounded-md border border-zinc-300 px-2.5 py-1 text-sm hover:bg-zinc-50 dark:border-zinc-700 dark:hover:bg-zinc-800"
              >
                <Download className="size-3.5" aria-hidden /> {label}
              </a>
            ))}
          </div>
          <section className="mb-6" aria-labelledby="summary-heading">
            <h2 id="summary-heading" className="mb-2 text-sm font-semibold uppercase tracking-wide text-zinc-500">
              Summary
            </h2>
            <Card className="px-4 py-2">
              <Markdown>{report.summary}</Markdown>
              {report.notes.length > 0 && (
                <ul className="mb-2 list-disc pl-5 text-xs text-zinc-500">
                  {report.notes.map((n, i) => (
                    <li key={i}>{n}</li>
                  ))}
                </ul>
              )}
            </Card>
          </section>
          <section className="mb-6">
            <Scores report={report} />
            <p className="mt-2 text-xs text-zinc-500" aria-label="Noise control">
              Noise control: {describeStages(report.stages)}
            </p>
          </section>
          <section className="mb-8" aria-labelledby="findings-heading">
            <h2 id="findings-heading" className="mb-3 text-sm font-semibold uppercase tracking-wide text-zinc-500">
              Findings
            </h2>
            {findings.isPending && <DelayedSkeleton rows={4} />}
            {findings.isError && (
              <ErrorNotice message={errorInfo(findings.error).message} onRetry={() => findings.refetch()} />
            )}
            {findings.data && (
              <p className="mb-2 text-sm text-zinc-600 dark:text-zinc-400" aria-label="Confirmed by the team">
                Confirmed by the team: {confirmed.confirmed} of {confirmed.judged} judged
                {confirmed.judged < teamFindings.length ? ` (${teamFindings.length} findings)` : ""}
              </p>
            )}
            {findings.data && (
              <FindingsList
                findings={teamFindings}
                projectUid={r.projectUid}
                snapshotUid={r.snapshotUid}
                canEdit={canEdit}
                pending={pendingFp}
                onDismiss={(f, d) => void toggleDismiss(f, d)}
                onOpen={(f) => presence.setFocus({ kind: "finding", fingerprint: f.fingerprint })}
                linked={linkedFinding}
                rowExtras={(f) => (
                  <>
                    <WatchersOf
                      members={presence.members.filter(
                        (m) =>
                          m.userId !== user.id && m.focus?.kind === "finding" && m.focus.fingerprint === f.fingerprint,
                      )}
                    />
                    <TeamBadges f={f} />
                  </>
                )}
                details={(f) =>
                  roomName && (
                    <FindingTeam
                      room={roomName}
                      state={room}
                      finding={f}
                      findings={teamFindings}
                      selfId={user.id}
                      canVote={canEdit}
                      codeLink={codeLink}
                    />
                  )
                }
                teamVerdictOf={(f) => teamVerdict(f.votes) ?? "unjudged"}
              />
            )}
          </section>
          <section className="mb-8" aria-labelledby="files-heading">
            <h2 id="files-heading" className="mb-3 text-sm font-semibold uppercase tracking-wide text-zinc-500">
              Files at risk
            </h2>
            <FilesAtRisk
              files={r.files.length ? r.files : report.files}
              projectUid={r.projectUid}
              snapshotUid={r.snapshotUid}
            />
          </section>
        </>
      )}
      {!report && r.status === "completed" && <ErrorNotice message="This review completed without a stored report." />}

      <ConfirmDialog
        open={confirmDelete}
        onClose={() => setConfirmDelete(false)}
        onConfirm={() => remove.mutate({ uid: r.uid })}
        busy={remove.isPending}
        title="Delete this review?"
        body="Its report, findings and activity log are deleted. False-positive marks stay with the project."
        confirmLabel="Delete review"
      />
    </>
  );
}
