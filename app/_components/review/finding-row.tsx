"use client";
/**
 * One finding in the list: the toggle (severity, title, where) with its badges and confidence, and
 * its details once opened. Positioned by the list's virtualizer.
 */
import { ChevronRight } from "lucide-react";
import type { ReactNode } from "react";
import { Badge, cx } from "../ui.tsx";
import { SeverityBadge } from "./badges.tsx";
import { FindingDetails, type FindingDetailsProps } from "./finding-details.tsx";
import type { ReviewFindingRow } from "./types.ts";

export interface FindingRowProps extends Omit<FindingDetailsProps, "id"> {
  /** Its place in the visible list (the keyboard moves by it). */
  index: number;
  /** Its offset from the top of the list, in pixels (from the virtualizer). */
  start: number;
  expanded: boolean;
  onToggle: () => void;
  measure: (el: HTMLLIElement | null) => void;
  rowExtras?: (f: ReviewFindingRow) => ReactNode;
}

export function FindingRow({ index, start, expanded, onToggle, measure, rowExtras, ...detail }: FindingRowProps) {
  const f = detail.finding;
  const detailsId = `finding-details-${index}`;
  return (
    <li
      data-index={index}
      ref={measure}
      className={cx(
        "absolute left-0 top-0 w-full border-b border-zinc-200 dark:border-zinc-800",
        f.dismissed && "bg-zinc-50 dark:bg-zinc-900/60",
      )}
      style={{ transform: `translateY(${start}px)` }}
    >
      <div className="flex items-start gap-2 px-3 py-2.5">
        <button
          type="button"
          data-finding-toggle={index}
          aria-expanded={expanded}
          aria-controls={detailsId}
          aria-keyshortcuts="ArrowDown ArrowUp Home End"
          onClick={onToggle}
          className="flex min-w-0 flex-1 items-start gap-2 text-left"
        >
          <ChevronRight
            className={cx("mt-0.5 size-4 shrink-0 text-zinc-400 transition-transform", expanded && "rotate-90")}
            aria-hidden
          />
          <SeverityBadge severity={f.severity} />
          <span className="min-w-0">
            <span
              className={cx(
                "block text-sm font-medium",
                f.dismissed && "text-zinc-500 line-through decoration-zinc-400",
              )}
            >
              {f.title}
            </span>
            <span className="mt-0.5 block truncate font-mono text-xs text-zinc-500">
              {f.file}:{f.startLine}
              {f.endLine > f.startLine ? `-${f.endLine}` : ""}
            </span>
          </span>
        </button>
        <div className="flex shrink-0 flex-wrap items-center justify-end gap-1.5 text-xs">
          {rowExtras?.(f)}
          {f.dismissed && <Badge tone="amber">false positive</Badge>}
          {f.verification === "confirmed" && <Badge tone="green">verified</Badge>}
          {f.verification === "unverified" && <Badge>unverified</Badge>}
          <Badge>{f.category}</Badge>
          <span
            className="w-10 text-right tabular-nums text-zinc-500"
            title={
              f.source === "static" && f.ruleId
                ? `Confidence: how often rule ${f.ruleId} was right on Argus's test suites`
                : "Confidence"
            }
          >
            {Math.round(f.confidence * 100)}%
          </span>
        </div>
      </div>
      {expanded && <FindingDetails id={detailsId} {...detail} />}
    </li>
  );
}
