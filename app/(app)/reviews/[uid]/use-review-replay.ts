"use client";
/**
 * A finished review's replay on its page: the whole log (use-review-log.ts), the scrubber's state, the
 * moment it shows (its events stand for the room's) and, with Follow on, the code the agent was at.
 */
import { useMemo } from "react";
import { useReplay } from "@/app/_components/review/use-replay.ts";
import { useReviewLog } from "@/app/_components/review/use-review-log.ts";
import type { RoomState } from "@/app/_lib/room.ts";
import { followTarget } from "@/server/shared/follow-target.ts";
import { atReplayEnd } from "@/server/shared/replay.ts";

export function useReviewReplay(
  uid: string,
  /** The review has ended: its log replays. */
  finished: boolean,
  room: RoomState<"review">,
  opts: { follow: boolean; initialAt: number | undefined },
) {
  const log = useReviewLog(uid, finished, room);
  const replay = useReplay(finished ? log.events : null, opts.initialAt);
  const replayState = replay.state;
  // Re-sliced when the moment moves, not on every clock tick.
  const replayLog = replayState?.events;
  const replayPos = replayState?.pos ?? 0;
  const momentEvents = useMemo(() => (replayLog ? replayLog.slice(0, replayPos) : null), [replayLog, replayPos]);
  const atEnd = !replayState || atReplayEnd(replayState);
  // While a finished review's log is read, the activity shows it loading where the replay will be
  // (not the live panel first, then the replay: one render of the long log, and nothing jumps).
  const replayLoading = finished && !momentEvents && !log.error;
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
  const { follow } = opts;
  const target = useMemo(() => (follow ? followTarget(shownRoomEvents) : null), [follow, shownRoomEvents]);
  return { log, replay, replayLoading, moment, target };
}
