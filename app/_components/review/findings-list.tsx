"use client";
/**
 * A review's findings: filter by severity, category, file and confidence, sort, expand for evidence,
 * explanation, data flow (taint findings: each step opens the code), fix and diff; mark false positive / restore; open the lines in the code viewer.
 * Filtering and sorting run in the browser over the full list (use-findings-filters.ts); the list is
 * virtualised (@tanstack/react-virtual, use-findings-rows.ts) so thousands of findings stay smooth —
 * only the rows in view exist, so what would otherwise rely on every row being in the DOM is done
 * there: ↑/↓/Home/End move between findings (scrolling the one asked for into view first), and a
 * `?finding=<fingerprint>` link (the inbox, "Link to this finding") scrolls to that finding and opens it.
 */
import type { ReactNode } from "react";
import { EmptyState } from "../ui.tsx";
import { FindingRow } from "./finding-row.tsx";
import { FindingsFilterBar, SeverityFilter } from "./findings-filters.tsx";
import type { ReviewFindingRow } from "./types.ts";
import { type TeamFilter, useFindingsFilters } from "./use-findings-filters.ts";
import { useFindingsRows } from "./use-findings-rows.ts";

export { findingHref } from "./finding-details.tsx";
export type { TeamFilter } from "./use-findings-filters.ts";

export interface FindingsListProps {
  findings: ReviewFindingRow[];
  /** The project whose code viewer opens a finding's lines; null: no link (a share link's page). */
  projectUid: string | null;
  snapshotUid: string | null;
  canEdit: boolean;
  /** Fingerprint of the finding whose false-positive mark is being saved. */
  pending: string | null;
  onDismiss: (f: ReviewFindingRow, dismissed: boolean) => void;
  /** A finding was opened (its details shown): e.g. to tell the room what one looks at. */
  onOpen?: (f: ReviewFindingRow) => void;
  /** Extra things on a finding's row (who looks at it, thread and vote counts). */
  rowExtras?: (f: ReviewFindingRow) => ReactNode;
  /** Extra things in an opened finding (the team's thread and votes). */
  details?: (f: ReviewFindingRow) => ReactNode;
  /** The team's verdict on a finding: with it, the list filters by verdict. */
  teamVerdictOf?: (f: ReviewFindingRow) => TeamFilter;
  /** A finding a link points at (`?finding=<fingerprint>`, e.g. from the inbox): open, and scrolled to. */
  linked?: string | null;
  /** What an empty list says instead of the thresholds note (e.g. a replay's moment before any finding). */
  emptyNote?: string;
}

export function FindingsList({
  findings,
  projectUid,
  snapshotUid,
  canEdit,
  pending,
  onDismiss,
  onOpen,
  rowExtras,
  details,
  teamVerdictOf,
  linked,
  emptyNote,
}: FindingsListProps) {
  const filters = useFindingsFilters(findings, teamVerdictOf);
  const { visible } = filters;
  const { open, toggle, scroller, virtualizer, onListKey } = useFindingsRows(visible, linked);

  if (findings.length === 0)
    return (
      <EmptyState title="No findings">
        {emptyNote ??
          "Nothing at or above this review’s thresholds. The noise-control line above says what each stage removed."}
      </EmptyState>
    );

  return (
    <div>
      <SeverityFilter filters={filters} />
      <FindingsFilterBar filters={filters} total={findings.length} withTeam={!!teamVerdictOf} />
      <div
        ref={scroller}
        className="max-h-[75vh] overflow-y-auto rounded-lg border border-zinc-200 dark:border-zinc-800"
        data-testid="findings-scroller"
      >
        <ul
          aria-label="Findings"
          className="relative"
          style={{ height: virtualizer.getTotalSize() }}
          onKeyDown={onListKey}
        >
          {virtualizer.getVirtualItems().map((item) => {
            const f = visible[item.index]!;
            const expanded = open.has(f.fingerprint);
            return (
              <FindingRow
                key={item.key}
                index={item.index}
                start={item.start}
                measure={virtualizer.measureElement}
                expanded={expanded}
                onToggle={() => {
                  if (!expanded) onOpen?.(f);
                  toggle(f.fingerprint);
                }}
                finding={f}
                projectUid={projectUid}
                snapshotUid={snapshotUid}
                canEdit={canEdit}
                busy={pending === f.fingerprint}
                onDismiss={onDismiss}
                rowExtras={rowExtras}
                details={details}
              />
            );
          })}
        </ul>
        {visible.length === 0 && (
          <p className="p-6 text-center text-sm text-zinc-500">No finding matches these filters.</p>
        )}
      </div>
    </div>
  );
}
