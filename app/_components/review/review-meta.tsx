"use client";
/** A review's facts (engine, scope, prompt, timings, usage) and its scores: the review page and a share link's page. */
import { ScoreChip } from "./badges.tsx";
import { engineLabel, formatCost, formatDate, formatDuration, formatTokens, scopeLabel } from "./format.ts";
import type { SharedReview } from "./types.ts";
import { Card } from "../ui.tsx";
import { useHydrated } from "@/app/_lib/use-hydrated.ts";

export function ReviewMeta({ review }: { review: SharedReview }) {
  const started = review.startedAt ? new Date(review.startedAt).getTime() : null;
  const finished = review.finishedAt ? new Date(review.finishedAt).getTime() : null;
  const u = review.usage;
  // Server render and hydration: UTC and no running clock (app/_lib/use-hydrated.ts).
  const local = useHydrated();
  const items: [string, string][] = [
    ["Engine", review.report?.engineLabel ?? engineLabel(review)],
    ["Scope", scopeLabel(review.scope)],
    ...(review.promptName ? ([["Prompt", review.promptName]] as [string, string][]) : []),
    ["Created", formatDate(review.createdAt, local)],
    [
      "Duration",
      started
        ? finished || local
          ? formatDuration((finished ?? Date.now()) - started) + (finished ? "" : " so far")
          : "running"
        : "not started",
    ],
    ...(u
      ? ([
          [
            "Usage",
            `${formatTokens(u.inputTokens, local)} in · ${formatTokens(u.outputTokens, local)} out${u.iterations ? ` · ${u.iterations} iterations` : ""}${formatCost(u.costUsd) ? ` · ${formatCost(u.costUsd)}` : ""}`,
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

export function ReviewScores({ report }: { report: NonNullable<SharedReview["report"]> }) {
  const categories = Object.entries(report.categoryScores).sort((a, b) => (a[1] ?? 0) - (b[1] ?? 0));
  return (
    <Card className="flex flex-wrap items-center gap-6 p-4" aria-label="Scores">
      <div className="text-center">
        <p className="text-3xl">
          <ScoreChip score={report.overallScore} label="Overall score (0–100, higher is better)" outOf />
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
