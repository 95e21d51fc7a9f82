"use client";
/** Severity badges, status pills and score chips, shared by every review page. */
import { cx } from "../ui.tsx";
import type { ReviewStatus, Severity } from "./types.ts";

const severityClass: Record<Severity, string> = {
  critical: "bg-red-700 text-white",
  high: "bg-orange-100 text-orange-800 ring-1 ring-orange-300 dark:bg-orange-900/40 dark:text-orange-200 dark:ring-orange-800",
  medium: "bg-amber-100 text-amber-800 dark:bg-amber-900/40 dark:text-amber-200",
  low: "bg-blue-100 text-blue-800 dark:bg-blue-900/40 dark:text-blue-200",
  info: "bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
};

export function SeverityBadge({ severity, count }: { severity: string; count?: number }) {
  const s = (severity in severityClass ? severity : "info") as Severity;
  return (
    <span
      className={cx(
        "inline-flex shrink-0 items-center rounded px-1.5 py-0.5 text-xs font-semibold uppercase tracking-wide",
        severityClass[s],
      )}
    >
      {count !== undefined ? `${count} ${s}` : s}
    </span>
  );
}

const statusClass: Record<ReviewStatus, string> = {
  pending: "bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
  queued: "bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
  running: "bg-brand-100 text-brand-700 dark:bg-brand-700/30 dark:text-brand-100",
  completed: "bg-green-100 text-green-800 dark:bg-green-900/40 dark:text-green-200",
  failed: "bg-red-100 text-red-800 dark:bg-red-900/40 dark:text-red-200",
  cancelled: "bg-zinc-200 text-zinc-600 dark:bg-zinc-800 dark:text-zinc-400",
};

export function StatusPill({ status, progress }: { status: ReviewStatus; progress?: number }) {
  const live = status === "running" || status === "queued" || status === "pending";
  return (
    <span
      className={cx(
        "inline-flex shrink-0 items-center gap-1.5 rounded-full px-2 py-0.5 text-xs font-medium",
        statusClass[status],
      )}
      data-status={status}
    >
      {live && <span className="size-1.5 animate-pulse rounded-full bg-current" aria-hidden />}
      {status}
      {status === "running" && progress !== undefined && progress > 0 && (
        <span className="tabular-nums">{Math.round(progress * 100)}%</span>
      )}
    </span>
  );
}

/** 0–100, higher is better. */
/** A 0–100 score, coloured by band; `outOf` shows its scale ("72 / 100") where it stands alone. */
export function ScoreChip({
  score,
  label,
  outOf = false,
}: {
  score: number | null | undefined;
  label?: string;
  outOf?: boolean;
}) {
  if (score === null || score === undefined) return <span className="text-sm text-zinc-400">—</span>;
  const s = Math.round(score);
  const tone =
    s >= 80
      ? "text-green-700 dark:text-green-400"
      : s >= 50
        ? "text-amber-700 dark:text-amber-400"
        : "text-red-700 dark:text-red-400";
  return (
    <span
      className={cx("font-semibold whitespace-nowrap tabular-nums", tone)}
      title={label ?? "Score (0–100, higher is better)"}
    >
      {s}
      {outOf && <span className="text-[0.5em] font-normal text-zinc-500 dark:text-zinc-400"> / 100</span>}
    </span>
  );
}
