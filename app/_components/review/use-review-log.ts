"use client";
/**
 * A finished review's whole persisted room log, for its replay. The page's room join reads that log
 * anyway (from seq 1, kept whole up to the room's MAX_EVENTS), so once it has, the replay is the
 * room's events — one read of the log for the page, and the room's later events (votes, thread
 * messages after the review ended) come with it. Read page by page through `reviews.events` only
 * when the room cannot give it: the socket could not connect, the join was refused, or the room kept
 * only its latest events. Not loaded while `enabled` is false (a review still running).
 */
import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import type { RoomState } from "@/app/_lib/room.ts";
import { errorInfo, useTRPCClient } from "@/app/_lib/trpc.ts";
import type { ReplayEvent } from "@/server/shared/replay.ts";

/** Pages of this many at most (the server's page). Stops after MAX_PAGES pages: a replay of 100k events is plenty. */
const MAX_PAGES = 20;

export function useReviewLog(reviewUid: string, enabled: boolean, room: RoomState<"review">) {
  const client = useTRPCClient();
  // The room holds the whole log when its join read it from the start and nothing was trimmed since.
  const roomHasAll = room.loaded && (room.events.length === 0 || room.events[0]!.seq === 1);
  const roomCannot = !roomHasAll && (room.loaded || room.offline || !!room.error);
  const history = useQuery({
    queryKey: ["review-log", reviewUid],
    enabled: enabled && roomCannot,
    staleTime: Infinity,
    queryFn: async () => {
      const all: ReplayEvent[] = [];
      let afterSeq = 0;
      for (let page = 0; page < MAX_PAGES; page++) {
        const batch = await client.reviews.events.query({ uid: reviewUid, afterSeq });
        if (batch.length === 0) break;
        all.push(...batch);
        afterSeq = batch[batch.length - 1]!.seq;
      }
      return all;
    },
  });
  const events = useMemo(() => {
    if (!enabled) return null;
    if (roomHasAll && !history.data) return room.events;
    if (!history.data) return null;
    const last = history.data.at(-1)?.seq ?? 0;
    // The room's events past the log as read (its earlier ones are in the log already).
    return [...history.data, ...room.events.filter((e) => e.seq > last)];
  }, [enabled, roomHasAll, history.data, room.events]);
  return { events, error: history.isError ? errorInfo(history.error).message : null };
}
