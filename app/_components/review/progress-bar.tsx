"use client";
/**
 * A running review's progress as the team sees it: for an agent review, the iterations used of the
 * budget and the tool calls run, folded live from the room's events (server/shared/review-progress.ts,
 * the same fold the job writes to the row); for the static engine, the row's fraction.
 */
import { useMemo } from "react";
import type { RoomState } from "@/app/_lib/room.ts";
import { foldProgress, NO_PROGRESS, progressFraction, progressText } from "@/server/shared/review-progress.ts";
import { ProgressBar } from "../ui.tsx";
import type { SharedReview } from "./types.ts";

export function ReviewProgress({ review: r, room }: { review: SharedReview; room: RoomState<"review"> }) {
  const progress = useMemo(() => room.events.reduce(foldProgress, NO_PROGRESS), [room.events]);
  // A share link's view carries no budget: its bar is the row's, its text has no "of N".
  const max = "budget" in r ? (r.budget as { maxIterations: number }).maxIterations : undefined;
  const agent = r.engine === "agent";
  const fraction = agent && max ? Math.max(r.progress, progressFraction(progress, max)) : r.progress;
  const text = !agent
    ? null
    : max
      ? progressText(progress, max)
      : `iteration ${progress.iterations} · ${progress.toolsRun} tool call${progress.toolsRun === 1 ? "" : "s"} run`;
  return (
    <div className="mt-3">
      <ProgressBar fraction={fraction} label="Review progress" />
      {text && (
        <p className="mt-1 text-xs tabular-nums text-zinc-500" data-testid="review-progress">
          {progress.iterations === 0 ? "waiting for the model's first answer" : text}
        </p>
      )}
    </div>
  );
}
