"use client";
/**
 * One review: header (project, engine, status, who is in the room, actions, sharing), then the room
 * itself (app/_components/review/review-room.tsx — the same pieces a share link's page shows): facts,
 * steering, live activity and chat, summary, scores, noise-control stage counts, findings and files.
 * A finished review replays from its room log: the activity, the findings and the followed code show
 * the scrubber's moment (`?at=<seq>`).
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Download, RotateCcw, Trash2 } from "lucide-react";
import { useParams, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import { toast } from "sonner";
import { FollowPane, FollowToggle, useFollowSetting } from "@/app/_components/review/follow-pane.tsx";
import { ReplayBar } from "@/app/_components/review/replay-bar.tsx";
import { useReplay } from "@/app/_components/review/use-replay.ts";
import { useReviewLog } from "@/app/_components/review/use-review-log.ts";
import { useStatusEvents } from "@/app/_components/review/use-status-events.ts";
import { followTarget } from "@/server/shared/follow-target.ts";
import { atReplayEnd, parseAtParam } from "@/server/shared/replay.ts";
import { PresenceBar } from "@/app/_components/rooms/presence-bar.tsx";
import { usePresence } from "@/app/_components/rooms/use-presence.ts";
import { useRoom } from "@/app/_lib/room.ts";
import { roomNameOrNull } from "@/server/shared/rooms.ts";
import { StatusPill } from "@/app/_components/review/badges.tsx";
import { engineLabel, scopeLabel } from "@/app/_components/review/format.ts";
import { ReviewRoom } from "@/app/_components/review/review-room.tsx";
import { ShareDialog } from "@/app/_components/review/share-dialog.tsx";
import { StopDialog } from "@/app/_components/review/stop-dialog.tsx";
import { isActive, type ReviewFindingRow } from "@/app/_components/review/types.ts";
import { ReviewOrigin } from "@/app/_components/review/review-origin.tsx";
import { BackLink, Button, ConfirmDialog, DelayedSkeleton, ErrorNotice, PageHeader } from "@/app/_components/ui.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";

const POLL_MS = 2000;

export default function ReviewPage() {
  const { uid } = useParams<{ uid: string }>();
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const { canEdit, user } = useWorkspace();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [pendingFp, setPendingFp] = useState<string | null>(null);
  const searchParams = useSearchParams();
  // The moment a link opens at; after that the replay owns the address.
  const [initialAt] = useState(() => parseAtParam(searchParams.get("at")));
  // A link to a finding's thread (the inbox) opens that finding.
  const linkedFinding = searchParams.get("finding");
  const [follow, setFollow] = useFollowSetting(user.id);

  const review = useQuery({
    ...trpc.reviews.get.queryOptions({ uid }),
    refetchInterval: (q) => (q.state.data && isActive(q.state.data.status) ? POLL_MS : false),
  });
  const status = review.data?.status;
  const roomName = roomNameOrNull("review", uid);
  // One join of the review's room for the page: the activity log and the chat share it.
  const room = useRoom(review.data ? roomName : null);
  const presence = usePresence(roomName, room);
  useStatusEvents(room, review.data?.status, review.refetch);
  const projectUid = review.data?.projectUid;
  const snapshotUid = review.data?.snapshotUid ?? null;
  const code = useMemo(() => (projectUid ? { projectUid, snapshotUid } : null), [projectUid, snapshotUid]);
  const live = !!status && isActive(status);
  // A finished review replays from its whole log; the moment's events stand for the room's.
  const log = useReviewLog(uid, !!status && !live, room);
  const replay = useReplay(!!status && !live ? log.events : null, initialAt);
  const replayState = replay.state;
  // Re-sliced when the moment moves, not on every clock tick.
  const replayLog = replayState?.events;
  const replayPos = replayState?.pos ?? 0;
  const momentEvents = useMemo(() => (replayLog ? replayLog.slice(0, replayPos) : null), [replayLog, replayPos]);
  const atEnd = !replayState || atReplayEnd(replayState);
  // While a finished review's log is read, the activity shows it loading where the replay will be
  // (not the live panel first, then the replay: one render of the long log, and nothing jumps).
  const replayLoading = !!status && !live && !momentEvents && !log.error;
  const moment = useMemo(
    () =>
      momentEvents
        ? { events: momentEvents, atEnd }
        : replayLoading
          ? { events: [], atEnd: true, loading: true }
          : null,
    [momentEvents, atEnd, replayLoading],
  );
  const shownRoomEvents = momentEvents ?? room.events;
  const target = useMemo(() => (follow ? followTarget(shownRoomEvents) : null), [follow, shownRoomEvents]);
  const findingsKey = trpc.reviews.findings.queryKey({ reviewUid: uid });
  // Asked for together with the review (most reviews one opens are finished): the list does not wait
  // for reviews.get's round trip. A review that turns out to be running has none yet; its findings
  // are read again when it completes.
  const findings = useQuery({
    ...trpc.reviews.findings.queryOptions({ reviewUid: uid }),
    enabled: status === undefined ? !review.isError : status === "completed",
  });
  const seenActive = useRef(false);
  useEffect(() => {
    if (status && isActive(status)) seenActive.current = true;
    if (!status || isActive(status)) return;
    // The review finished (or was found finished): refresh lists that show it, and read the
    // findings again if they were read while it ran.
    void queryClient.invalidateQueries({ queryKey: trpc.reviews.list.pathKey() });
    if (seenActive.current) {
      seenActive.current = false;
      void queryClient.invalidateQueries({ queryKey: trpc.reviews.findings.queryKey({ reviewUid: uid }) });
    }
  }, [status, queryClient, trpc, uid]);

  const onError = (err: unknown) => toast.error(errorInfo(err).message);
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
            {canEdit && <ShareDialog reviewUid={r.uid} />}
            {canEdit && live && <StopDialog review={r} room={room} onCancelled={() => void review.refetch()} />}
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
      <ReviewOrigin reviewUid={r.uid} projectUid={r.projectUid} projectName={r.projectName} />
      <ReviewRoom
        review={r}
        roomName={roomName}
        room={room}
        presence={presence}
        findings={findings}
        canEdit={canEdit}
        code={code}
        moment={moment}
        asking
        linkedFinding={linkedFinding}
        beforeActivity={
          <>
            {r.engine === "agent" && replayState && replayState.events.length > 0 && (
              <ReplayBar state={replayState} dispatch={replay.dispatch} />
            )}
            {r.engine === "agent" && replayLoading && <ReplayBar state={null} dispatch={replay.dispatch} />}
            {log.error && <ErrorNotice message={`Could not load the replay: ${log.error}`} />}
          </>
        }
        activityActions={<FollowToggle on={follow} onChange={setFollow} />}
        activityFooter={follow && <FollowPane target={target} projectUid={r.projectUid} snapshotUid={r.snapshotUid} />}
        dismissal={{ pending: pendingFp, onDismiss: (f, d) => void toggleDismiss(f, d) }}
        reportActions={
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
        }
      />

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
