"use client";
/**
 * One review: header (project, engine, status, who is in the room, actions, sharing), then the room
 * itself (app/_components/review/review-room.tsx — the same pieces a share link's page shows): facts,
 * steering, live activity and chat, summary, scores, noise-control stage counts, findings and files.
 * A finished review replays from its room log: the activity, the findings and the followed code show
 * the scrubber's moment (`?at=<seq>`).
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { RotateCcw, Trash2 } from "lucide-react";
import { useParams, useRouter, useSearchParams } from "next/navigation";
import { useMemo, useState } from "react";
import { toast } from "sonner";
import { FollowPane, FollowToggle, useFollowSetting } from "@/app/_components/review/follow-pane.tsx";
import { ReplayBar } from "@/app/_components/review/replay-bar.tsx";
import { useStatusEvents } from "@/app/_components/review/use-status-events.ts";
import { parseAtParam } from "@/server/shared/replay.ts";
import { PresenceBar } from "@/app/_components/rooms/presence-bar.tsx";
import { usePresence } from "@/app/_components/rooms/use-presence.ts";
import { useRoom } from "@/app/_lib/room.ts";
import { roomNameOrNull } from "@/server/shared/rooms.ts";
import { StatusPill } from "@/app/_components/review/badges.tsx";
import { engineLabel, scopeLabel } from "@/app/_components/review/format.ts";
import { ReviewRoom } from "@/app/_components/review/review-room.tsx";
import { ShareDialog } from "@/app/_components/review/share-dialog.tsx";
import { StopDialog } from "@/app/_components/review/stop-dialog.tsx";
import { isActive } from "@/app/_components/review/types.ts";
import { ReviewOrigin } from "@/app/_components/review/review-origin.tsx";
import { BackLink, Button, ConfirmDialog, DelayedSkeleton, ErrorNotice, PageHeader } from "@/app/_components/ui.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { ExportLinks } from "./export-links.tsx";
import { useFindingDismissal } from "./use-finding-dismissal.ts";
import { useReviewFindings } from "./use-review-findings.ts";
import { useReviewReplay } from "./use-review-replay.ts";

const POLL_MS = 2000;

export default function ReviewPage() {
  const { uid } = useParams<{ uid: string }>();
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const { canEdit, user } = useWorkspace();
  const [confirmDelete, setConfirmDelete] = useState(false);
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
  const { log, replay, replayLoading, moment, target } = useReviewReplay(uid, !!status && !live, room, {
    follow,
    initialAt,
  });
  const replayState = replay.state;
  const findings = useReviewFindings(uid, { status, isError: review.isError });
  const dismissal = useFindingDismissal(uid);

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
        dismissal={dismissal}
        reportActions={<ExportLinks reviewUid={r.uid} />}
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
