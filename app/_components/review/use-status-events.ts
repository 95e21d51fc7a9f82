"use client";
/**
 * Reads the review again as soon as its room says its status changed (a stop, a cancel, the end),
 * rather than at the page's next poll: "stopped by …" and the report show within the second the
 * review settled. The poll stays as the fallback when the socket cannot connect.
 */
import { useEffect, useRef } from "react";
import type { RoomState } from "@/app/_lib/room.ts";

export function useStatusEvents(room: RoomState<"review">, status: string | undefined, refetch: () => unknown): void {
  const seen = useRef(0);
  const latest = room.events.findLast((e) => e.type === "review_status" || e.type === "steering");
  useEffect(() => {
    if (!latest || latest.seq <= seen.current) return;
    seen.current = latest.seq;
    if (latest.type === "steering" || latest.payload.status !== status) void refetch();
  }, [latest, status, refetch]);
}
