"use client";
/**
 * A review's findings: filter by severity, category, file and confidence, sort, expand for evidence,
 * explanation, data flow (taint findings: each step opens the code), fix and diff; mark false positive / restore; open the lines in the code viewer.
 * Filtering and sorting run in the browser over the full list; the list is virtualised
 * (@tanstack/react-virtual) so thousands of findings stay smooth — only the rows in view exist, so
 * what would otherwise rely on every row being in the DOM is done here: ↑/↓/Home/End move between
 * findings (scrolling the one asked for into view first), and a `?finding=<fingerprint>` link (the
 * inbox, "Link to this finding") scrolls to that finding and opens it.
 */
import { useVirtualizer } from "@tanstack/react-virtual";
import { ChevronRight, ExternalLink } from "lucide-react";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { type KeyboardEvent, type ReactNode, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { Badge, Button, EmptyState, cx } from "../ui.tsx";
import { SeverityBadge } from "./badges.tsx";
import { DataFlow } from "./data-flow.tsx";
import { codeHref, severityRank } from "./format.ts";
import { Markdown } from "./markdown.tsx";
import { CATEGORIES, SEVERITIES, type ReviewFindingRow, type Severity } from "./types.ts";
import { type Verdict, VERDICT_LABEL, VERDICTS } from "@/server/shared/team-verdicts.ts";
import { DiffView } from "../diff/diff-view.tsx";
import { parseUnifiedDiff } from "@/server/shared/diff-lines.ts";
import { cweOf } from "@/server/shared/cwe.ts";

type SortKey = "severity" | "file" | "confidence" | "category";
const selectClass =
  "rounded-md border border-zinc-300 bg-white px-2 py-1 text-sm dark:border-zinc-700 dark:bg-zinc-900";

/** One collator for every comparison (`localeCompare` looks one up per call: slow over 2,000 findings). */
const collate = new Intl.Collator().compare;

const comparators: Record<SortKey, (a: ReviewFindingRow, b: ReviewFindingRow) => number> = {
  severity: (a, b) =>
    severityRank(a.severity) - severityRank(b.severity) ||
    b.confidence - a.confidence ||
    collate(a.file, b.file) ||
    a.startLine - b.startLine,
  file: (a, b) => collate(a.file, b.file) || a.startLine - b.startLine,
  confidence: (a, b) => b.confidence - a.confidence || severityRank(a.severity) - severityRank(b.severity),
  category: (a, b) => collate(a.category, b.category) || severityRank(a.severity) - severityRank(b.severity),
};

/** The link to a finding of the page at `pathname`: `?finding=<fingerprint>` (read by the page). */
export function findingHref(pathname: string, fingerprint: string): string {
  return `${pathname}?finding=${encodeURIComponent(fingerprint)}`;
}

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

/** A finding's team verdict for the filter: a verdict, split/unvoted ("unjudged"). */
export type TeamFilter = Verdict | "unjudged";

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
  const [team, setTeam] = useState<TeamFilter | "">("");
  const [severity, setSeverity] = useState<Severity | "">("");
  const [category, setCategory] = useState("");
  const [file, setFile] = useState("");
  const [minConfidence, setMinConfidence] = useState(0);
  const [sort, setSort] = useState<SortKey>("severity");
  const [falsePositives, setFalsePositives] = useState<"show" | "hide" | "only">("show");
  const [open, setOpen] = useState<Set<string>>(() => new Set(linked ? [linked] : []));
  const scroller = useRef<HTMLDivElement>(null);
  const pathname = usePathname();

  const files = useMemo(() => [...new Set(findings.map((f) => f.file))].sort(), [findings]);
  const counts = useMemo(() => {
    const c = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
    for (const f of findings) if (!f.dismissed) c[f.severity as Severity] = (c[f.severity as Severity] ?? 0) + 1;
    return c;
  }, [findings]);
  const visible = useMemo(
    () =>
      findings
        .filter(
          (f) =>
            (!severity || f.severity === severity) &&
            (!category || f.category === category) &&
            (!file || f.file === file) &&
            f.confidence >= minConfidence &&
            (falsePositives === "show" || (falsePositives === "hide" ? !f.dismissed : f.dismissed)) &&
            (!team || !teamVerdictOf || teamVerdictOf(f) === team),
        )
        .sort(comparators[sort]),
    [findings, severity, category, file, minConfidence, sort, falsePositives, team, teamVerdictOf],
  );

  const virtualizer = useVirtualizer({
    count: visible.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 58,
    overscan: 8,
    getItemKey: (i) => visible[i]!.fingerprint,
  });
  // Once per link, when the linked finding is first in the list (findings load after the page): a
  // new link (another "Link to this finding" clicked) opens and scrolls again.
  const linkedAt = linked ? visible.findIndex((f) => f.fingerprint === linked) : -1;
  const handledLink = useRef<string | null>(null);
  useEffect(() => {
    if (!linked || linkedAt < 0 || handledLink.current === linked) return;
    handledLink.current = linked;
    setOpen((prev) => (prev.has(linked) ? prev : new Set(prev).add(linked)));
    // To its offset, not scrollToIndex: that one keeps re-aligning the row while it grows (its thread
    // loading) for seconds, pulling the linked message back out of view.
    const offset = virtualizer.getOffsetForIndex(linkedAt, "start")?.[0];
    if (offset !== undefined) virtualizer.scrollToOffset(offset);
  }, [linked, linkedAt, virtualizer]);

  // Keyboard moves and deep links ask for a row that may not be rendered yet: scroll the virtualizer
  // to it, then focus its toggle once it exists (now, or after the render the scroll causes).
  const pendingFocus = useRef<number | null>(null);
  const focusPending = useCallback(() => {
    const i = pendingFocus.current;
    if (i === null) return;
    const toggleButton = scroller.current?.querySelector<HTMLElement>(`[data-finding-toggle="${i}"]`);
    if (!toggleButton) return;
    pendingFocus.current = null;
    toggleButton.focus({ preventScroll: true });
  }, []);
  useEffect(focusPending);
  const focusRow = (i: number, align: "auto" | "start" = "auto") => {
    virtualizer.scrollToIndex(i, { align });
    pendingFocus.current = i;
    focusPending();
  };
  const onListKey = (e: KeyboardEvent<HTMLUListElement>) => {
    const at = (e.target as HTMLElement).dataset.findingToggle;
    if (at === undefined || visible.length === 0) return;
    const i = Number(at);
    const next = { ArrowDown: i + 1, ArrowUp: i - 1, Home: 0, End: visible.length - 1 }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    focusRow(Math.max(0, Math.min(visible.length - 1, next)));
  };

  const toggle = (fp: string) =>
    setOpen((prev) => {
      const next = new Set(prev);
      if (next.has(fp)) next.delete(fp);
      else next.add(fp);
      return next;
    });

  if (findings.length === 0)
    return (
      <EmptyState title="No findings">
        {emptyNote ??
          "Nothing at or above this review’s thresholds. The noise-control line above says what each stage removed."}
      </EmptyState>
    );

  return (
    <div>
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
      <div className="mb-3 flex flex-wrap items-center gap-x-4 gap-y-2 text-sm">
        <label className="flex items-center gap-1.5">
          Category
          <select
            aria-label="Category"
            className={selectClass}
            value={category}
            onChange={(e) => setCategory(e.target.value)}
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
            value={file}
            onChange={(e) => setFile(e.target.value)}
          >
            <option value="">All files ({files.length})</option>
            {files.map((f) => (
              <option key={f} value={f}>
                {f}
              </option>
            ))}
          </select>
        </label>
        <label className="flex items-center gap-1.5">
          Confidence
          <select
            aria-label="Minimum confidence"
            className={selectClass}
            value={minConfidence}
            onChange={(e) => setMinConfidence(Number(e.target.value))}
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
            value={falsePositives}
            onChange={(e) => setFalsePositives(e.target.value as typeof falsePositives)}
          >
            <option value="show">Show</option>
            <option value="hide">Hide</option>
            <option value="only">Only</option>
          </select>
        </label>
        {teamVerdictOf && (
          <label className="flex items-center gap-1.5">
            Team verdict
            <select
              aria-label="Team verdict"
              className={selectClass}
              value={team}
              onChange={(e) => setTeam(e.target.value as TeamFilter | "")}
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
            value={sort}
            onChange={(e) => setSort(e.target.value as SortKey)}
          >
            <option value="severity">Severity</option>
            <option value="file">File</option>
            <option value="confidence">Confidence</option>
            <option value="category">Category</option>
          </select>
        </label>
        <span className="text-xs text-zinc-500" aria-live="polite">
          {visible.length} of {findings.length} shown
        </span>
      </div>
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
            const detailsId = `finding-details-${item.index}`;
            return (
              <li
                key={item.key}
                data-index={item.index}
                ref={virtualizer.measureElement}
                className={cx(
                  "absolute left-0 top-0 w-full border-b border-zinc-200 dark:border-zinc-800",
                  f.dismissed && "bg-zinc-50 dark:bg-zinc-900/60",
                )}
                style={{ transform: `translateY(${item.start}px)` }}
              >
                <div className="flex items-start gap-2 px-3 py-2.5">
                  <button
                    type="button"
                    data-finding-toggle={item.index}
                    aria-expanded={expanded}
                    aria-controls={detailsId}
                    aria-keyshortcuts="ArrowDown ArrowUp Home End"
                    onClick={() => {
                      if (!expanded) onOpen?.(f);
                      toggle(f.fingerprint);
                    }}
                    className="flex min-w-0 flex-1 items-start gap-2 text-left"
                  >
                    <ChevronRight
                      className={cx(
                        "mt-0.5 size-4 shrink-0 text-zinc-400 transition-transform",
                        expanded && "rotate-90",
                      )}
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
                {expanded && (
                  <div id={detailsId} className="space-y-3 px-9 pb-4 text-sm">
                    <Markdown>{f.explanation}</Markdown>
                    {f.evidence.trim() && (
                      <div>
                        <p className="mb-1 text-xs font-semibold uppercase tracking-wide text-zinc-500">Evidence</p>
                        <pre className="overflow-x-auto rounded-md border border-zinc-200 bg-zinc-50 p-3 font-mono text-[12.5px] leading-5 dark:border-zinc-800 dark:bg-zinc-900">
                          {f.evidence}
                        </pre>
                      </div>
                    )}
                    {f.trace && f.trace.length > 0 && (
                      <DataFlow trace={f.trace} projectUid={projectUid} snapshotUid={snapshotUid} />
                    )}
                    {f.suggestedFix && (
                      <div>
                        <p className="mb-1 text-xs font-semibold uppercase tracking-wide text-zinc-500">
                          Suggested fix
                        </p>
                        <Markdown>{f.suggestedFix}</Markdown>
                      </div>
                    )}
                    {f.diff && <DiffView lines={parseUnifiedDiff(f.diff)} label="Suggested" />}
                    {f.verificationNote && (
                      <div>
                        <p className="mb-1 text-xs font-semibold uppercase tracking-wide text-zinc-500">
                          {f.verification === "confirmed" ? "Verification" : "Verification note"}
                        </p>
                        <p className="whitespace-pre-wrap text-zinc-700 dark:text-zinc-300">{f.verificationNote}</p>
                      </div>
                    )}
                    <div className="flex flex-wrap items-center gap-2">
                      {projectUid && (
                        <Link
                          href={codeHref(projectUid, snapshotUid, f.file, f.startLine, f.endLine)}
                          className="inline-flex items-center gap-1 rounded-md border border-zinc-300 px-3 py-1.5 text-sm font-medium hover:bg-zinc-50 dark:border-zinc-700 dark:hover:bg-zinc-800"
                        >
                          <ExternalLink className="size-3.5" aria-hidden /> Open in code
                        </Link>
                      )}
                      {canEdit &&
                        (f.dismissed ? (
                          <Button
                            variant="secondary"
                            busy={pending === f.fingerprint}
                            onClick={() => onDismiss(f, false)}
                          >
                            Restore
                          </Button>
                        ) : (
                          <Button
                            variant="secondary"
                            busy={pending === f.fingerprint}
                            onClick={() => onDismiss(f, true)}
                          >
                            Mark false positive
                          </Button>
                        ))}
                      <Link
                        href={findingHref(pathname, f.fingerprint)}
                        scroll={false}
                        className="text-xs text-brand-600 hover:underline"
                      >
                        Link to this finding
                      </Link>
                      <span className="text-xs text-zinc-500">
                        {f.source === "static"
                          ? "static analysis"
                          : f.source === "team"
                            ? "the team, from Argus's answer"
                            : "review agent"}
                        {f.ruleId && (
                          <>
                            {" · rule "}
                            <code className="font-mono">{f.ruleId}</code>
                          </>
                        )}
                        {f.source === "static" &&
                          cweOf(f.ruleId).map((c) => (
                            <span key={c}>
                              {" · "}
                              <a
                                href={`https://cwe.mitre.org/data/definitions/${c.slice(4)}.html`}
                                target="_blank"
                                rel="noreferrer"
                                className="hover:underline"
                              >
                                {c}
                              </a>
                            </span>
                          ))}
                      </span>
                    </div>
                    {details?.(f)}
                  </div>
                )}
              </li>
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
