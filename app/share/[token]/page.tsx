"use client";
/**
 * A review's share link, opened by anyone — no account: the review's live room, read-only. The same
 * pieces as the review page (app/_components/review/review-room.tsx) fed by the public `shares.*`
 * procedures and a socket opened with the link's token, so the server knows it for a spectator
 * (server/rooms/spectators.ts). Composer, votes and steering are off with the reason; when the link
 * is revoked or expires, the page says it no longer works.
 */
import { useQuery } from "@tanstack/react-query";
import { useParams, useSearchParams } from "next/navigation";
import { useCallback, useEffect, useMemo, useState } from "react";
import { StatusPill } from "@/app/_components/review/badges.tsx";
import { engineLabel, scopeLabel } from "@/app/_components/review/format.ts";
import { ReviewRoom } from "@/app/_components/review/review-room.tsx";
import { isActive } from "@/app/_components/review/types.ts";
import { PresenceBar } from "@/app/_components/rooms/presence-bar.tsx";
import { usePresence } from "@/app/_components/rooms/use-presence.ts";
import { Badge, DelayedSkeleton, ErrorNotice, PageHeader } from "@/app/_components/ui.tsx";
import { type RoomAccess, RoomAccessProvider, shareSocket, useRoom } from "@/app/_lib/room.ts";
import { errorInfo, useTRPC, useTRPCClient } from "@/app/_lib/trpc.ts";
import { reviewRoom } from "@/server/shared/rooms.ts";

const POLL_MS = 2000;
const READ_ONLY =
  "You are watching through a read-only share link: posting, voting and steering need an account in the workspace.";

/** Why the link stopped working (refused, revoked, expired), heard on its socket; null while it works. */
function useLinkEnded(token: string): string | null {
  const [ended, setEnded] = useState<string | null>(null);
  useEffect(() => {
    const s = shareSocket(token);
    const onRefused = (err: Error & { data?: { message?: string } }) => {
      if (err.data?.message) setEnded(err.data.message);
    };
    const onRevoked = ({ reason }: { reason: string }) => setEnded(reason);
    s.on("connect_error", onRefused);
    s.on("revoked", onRevoked);
    return () => {
      s.off("connect_error", onRefused);
      s.off("revoked", onRevoked);
    };
  }, [token]);
  return ended;
}

function LinkEnded({ reason }: { reason: string }) {
  return (
    <div className="mx-auto max-w-lg py-10">
      <h1 className="mb-3 text-xl font-semibold">This link no longer works</h1>
      <ErrorNotice message={reason} />
    </div>
  );
}

function SharedReviewPage({ token }: { token: string }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const ended = useLinkEnded(token);
  // "Link to this finding" on this page links here with `?finding=`.
  const linkedFinding = useSearchParams().get("finding");
  const review = useQuery({
    ...trpc.shares.review.queryOptions({ token }),
    refetchInterval: (q) => (q.state.data && isActive(q.state.data.status) ? POLL_MS : false),
    enabled: !ended,
  });
  const status = review.data?.status;
  const room = useRoom(review.data && !ended ? reviewRoom(review.data.uid) : null);
  const roomName = review.data ? reviewRoom(review.data.uid) : null;
  const presence = usePresence(roomName, room);
  const findings = useQuery({
    ...trpc.shares.findings.queryOptions({ token }),
    enabled: status === "completed" && !ended,
  });
  const poll = useCallback((afterSeq: number) => client.shares.events.query({ token, afterSeq }), [client, token]);

  const refused = review.isError ? errorInfo(review.error) : null;
  if (ended) return <LinkEnded reason={ended} />;
  if (refused && (refused.status === 403 || refused.status === 404)) return <LinkEnded reason={refused.message} />;
  if (refused) return <ErrorNotice message={refused.message} onRetry={() => void review.refetch()} />;
  if (!review.data) return <DelayedSkeleton rows={4} />;
  const r = review.data;

  return (
    <>
      <PageHeader
        title={`Review of ${r.projectName}`}
        description={`${engineLabel(r)} · ${scopeLabel(r.scope)}`}
        actions={
          <>
            <PresenceBar members={presence.members} selfId={null} />
            <Badge>read-only link</Badge>
            <StatusPill status={r.status} progress={r.progress} />
          </>
        }
      />
      <p className="-mt-4 mb-5 text-sm text-zinc-600 dark:text-zinc-400" role="note">
        {READ_ONLY}
      </p>
      <ReviewRoom
        review={r}
        roomName={roomName}
        room={room}
        presence={presence}
        findings={findings}
        canEdit={false}
        code={null}
        poll={poll}
        linkedFinding={linkedFinding}
      />
    </>
  );
}

export default function SharePage() {
  const { token } = useParams<{ token: string }>();
  // The link's own socket: a spectator of this one review, with no session.
  const access = useMemo<RoomAccess>(
    () => ({ socket: () => shareSocket(token), selfId: null, readOnly: READ_ONLY }),
    [token],
  );
  return (
    <RoomAccessProvider value={access}>
      <SharedReviewPage token={token} />
    </RoomAccessProvider>
  );
}
