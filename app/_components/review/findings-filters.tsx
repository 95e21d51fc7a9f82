"use client";
/** The findings list's controls: the severity badges that filter, and the row of selects beside them. */
import { cx } from "../ui.tsx";
import { SeverityBadge } from "./badges.tsx";
import { CATEGORIES, SEVERITIES } from "./types.ts";
import type { FalsePositives, FindingsFilters, SortKey, TeamFilter } from "./use-findings-filters.ts";
import { VERDICT_LABEL, VERDICTS } from "@/server/shared/team-verdicts.ts";

const selectClass =
  "rounded-md border border-zinc-300 bg-white px-2 py-1 text-sm dark:border-zinc-700 dark:bg-zinc-900";

/** One toggle per severity with its count of open findings; pressing the pressed one clears it. */
export function SeverityFilter({ filters }: { filters: Pick<FindingsFilters, "severity" | "setSeverity" | "counts"> }) {
  const { severity, setSeverity, counts } = filters;
  return (
    <div className="mb-3 flex flex-wrap items-center gap-2" aria-label="Severity filter" role="group">
      {SEVERITIES.map((s) => (
        <button
          key={s}
          type="button"
          aria-pressed={severity === s}
          onClick={() => setSeverity(severity === s ? "" : s)}
          className={cx(
            "rounded-md p-0.5 transition-opacity",
            severity && severity !== s && "opacity-40",
            severity === s && "ring-2 ring-brand-500",
          )}
        >
          <SeverityBadge severity={s} count={counts[s]} />
        </button>
      ))}
    </div>
  );
}

/** Category, file, confidence, false positives, team verdict (when the team votes) and sort. */
export function FindingsFilterBar({
  filters,
  total,
  withTeam,
}: {
  filters: FindingsFilters;
  /** How many findings there are before filtering ("3 of 12 shown"). */
  total: number;
  /** Whether the list knows the team's verdicts (then it filters by them). */
  withTeam: boolean;
}) {
  const f = filters;
  return (
    <div className="mb-3 flex flex-wrap items-center gap-x-4 gap-y-2 text-sm">
      <label className="flex items-center gap-1.5">
        Category
        <select
          aria-label="Category"
          className={selectClass}
          value={f.category}
          onChange={(e) => f.setCategory(e.target.value)}
        >
          <option value="">All</option>
          {CATEGORIES.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </label>
      <label className="flex min-w-0 items-center gap-1.5">
        File
        <select
          aria-label="File"
          className={cx(selectClass, "max-w-64")}
          value={f.file}
          onChange={(e) => f.setFile(e.target.value)}
        >
          <option value="">All files ({f.files.length})</option>
          {f.files.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </label>
      <label className="flex items-center gap-1.5">
        Confidence
        <select
          aria-label="Minimum confidence"
          className={selectClass}
          value={f.minConfidence}
          onChange={(e) => f.setMinConfidence(Number(e.target.value))}
        >
          <option value={0}>Any</option>
          <option value={0.5}>≥ 50%</option>
          <option value={0.7}>≥ 70%</option>
          <option value={0.9}>≥ 90%</option>
        </select>
      </label>
      <label className="flex items-center gap-1.5">
        False positives
        <select
          aria-label="False positives"
          className={selectClass}
          value={f.falsePositives}
          onChange={(e) => f.setFalsePositives(e.target.value as FalsePositives)}
        >
          <option value="show">Show</option>
          <option value="hide">Hide</option>
          <option value="only">Only</option>
        </select>
      </label>
      {withTeam && (
        <label className="flex items-center gap-1.5">
          Team verdict
          <select
            aria-label="Team verdict"
            className={selectClass}
            value={f.team}
            onChange={(e) => f.setTeam(e.target.value as TeamFilter | "")}
          >
            <option value="">Any</option>
            {VERDICTS.map((v) => (
              <option key={v} value={v}>
                {VERDICT_LABEL[v]}
              </option>
            ))}
            <option value="unjudged">not judged</option>
          </select>
        </label>
      )}
      <label className="flex items-center gap-1.5">
        Sort by
        <select
          aria-label="Sort by"
          className={selectClass}
          value={f.sort}
          onChange={(e) => f.setSort(e.target.value as SortKey)}
        >
          <option value="severity">Severity</option>
          <option value="file">File</option>
          <option value="confidence">Confidence</option>
          <option value="category">Category</option>
        </select>
      </label>
      <span className="text-xs text-zinc-500" aria-live="polite">
        {f.visible.length} of {total} shown
      </span>
    </div>
  );
}
