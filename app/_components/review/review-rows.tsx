"use client";
/** A list of reviews (dashboard, reviews page): project, engine, scope, status with live progress, score. */
import Link from "next/link";
import { Card } from "../ui.tsx";
import { ScoreChip, StatusPill } from "./badges.tsx";
import { useHydrated } from "@/app/_lib/use-hydrated.ts";
import { engineLabel, formatDate, scopeLabel } from "./format.ts";
import type { ReviewListItem } from "./types.ts";

export function ReviewRows({ reviews, showProject = true }: { reviews: ReviewListItem[]; showProject?: boolean }) {
  // Dates in UTC until hydrated (app/_lib/use-hydrated.ts).
  const local = useHydrated();
  return (
    <Card>
      <ul aria-label="Reviews" className="divide-y divide-zinc-200 dark:divide-zinc-800">
        {reviews.map((r) => (
          <li key={r.uid} className="flex flex-wrap items-center gap-x-4 gap-y-1 px-4 py-3">
            <div className="min-w-0 flex-1">
              <Link href={`/reviews/${r.uid}`} className="block truncate font-medium hover:underline">
                {showProject ? r.projectName : `Review of ${formatDate(r.createdAt, local)}`}
              </Link>
              <p className="truncate text-xs text-zinc-500">
                {engineLabel(r)} · {scopeLabel(r.scope)} · {showProject ? `${formatDate(r.createdAt, local)} · ` : ""}
                {r.status === "completed"
                  ? `${r.findingsCount} finding${r.findingsCount === 1 ? "" : "s"}`
                  : (r.statusReason ?? "")}
              </p>
            </div>
            <StatusPill status={r.status} progress={r.progress} />
            <span className="w-8 text-right">
              <ScoreChip score={r.scoreOverall} outOf />
            </span>
          </li>
        ))}
      </ul>
    </Card>
  );
}
