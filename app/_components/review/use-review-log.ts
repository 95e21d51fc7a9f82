"use client";
/**
 * A finished review's whole persisted room log, for its replay: read page by page through
 * `reviews.events` (the room's live list keeps only its latest events), merged by seq with what the
 * room delivers since (votes, thread messages after the review ended). Not loaded while `enabled` is
 * false (a review still running).
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
  const history = useQuery({
    queryKey: ["review-log", reviewUid],
    enabled,
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
    if (!history.data) return null;
    const last = history.data.at(-1)?.seq ?? 0;
    // The room's events past the log as read (its earlier ones are in the log already).
    return [...history.data, ...room.events.filter((e) => e.seq > last)];
  }, [history.data, room.events]);
  return { events, error: history.isError ? errorInfo(history.error).message : null };
}
