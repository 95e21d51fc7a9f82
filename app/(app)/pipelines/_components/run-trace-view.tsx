"use client";
/**
 * The live trace: one row per step as it starts, with its timing, the model tokens it used, its
 * output summary, streamed text and sources; the run's token total above. The rows are virtualised
 * (only those in view exist, measured as they render), so a run of 1,000 items with thousands of
 * steps scrolls as lightly as a short one; while the reader is at the end it follows the newest step.
 *
 * What keeps a scrolled frame short (bench/pipeline-ui: 1,000 steps scrolled end to end): each row's
 * height is computed from what it shows (rowHeight: the CSS below has fixed line heights), so a row
 * that appears is measured at the height it was placed at and nothing moves or renders again; a row's
 * divider is its own top border (a `divide-y` border would move to another row whenever the last
 * rendered row changes, resizing two rows each frame); folded output and sources are only built when
 * opened; few rows are rendered beyond the view; and rows are contained for layout.
 */
import { useVirtualizer } from "@tanstack/react-virtual";
import { CheckCircle2, Loader2 } from "lucide-react";
import { memo, useEffect, useRef, useState, type ReactNode } from "react";
import { formatDuration, formatTokens } from "@/app/_components/review/format.ts";
import { cx } from "@/app/_components/ui.tsx";
import { stepMs, type RunTrace, type TokenUsage, type TraceStep } from "@/server/shared/run-trace.ts";

const tokensLabel = (u: TokenUsage) => `${formatTokens(u.input)} in · ${formatTokens(u.output)} out tokens`;

/**
 * A row's height in px, as its CSS lays it out when nothing wraps: 16 of padding, the 20 px header
 * line, the streamed text (4 px margin, 16 px padding, 16 px a line, at most 160 px), 20 px per fold
 * (output, sources: 4 px margin, a 16 px summary), 1 px of divider above every row but the first.
 * Wrapped lines make a row taller: it is measured as it renders, and corrected then.
 */
export function rowHeight(step: TraceStep, index: number): number {
  let h = 16 + 20 + (index > 0 ? 1 : 0);
  if (step.tokens) h += 4 + Math.min(160, 16 + 16 * step.tokens.split("\n").length);
  if (step.output) h += 20;
  if (step.sources.length > 0) h += 20;
  return h;
}

/** A fold whose contents are only built once it is opened (most never are). */
function Fold({ summary, className, children }: { summary: ReactNode; className: string; children: () => ReactNode }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="mt-1" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary className={className}>{summary}</summary>
      {open && children()}
    </details>
  );
}

const StepRow = memo(function StepRow({ step, live }: { step: TraceStep; live: boolean }) {
  const ms = stepMs(step);
  const structural = step.name === "loop" || step.name.startsWith("branch");
  const runningNow = live && step.endedAt === null && !structural;
  return (
    <div className="py-2" style={{ paddingLeft: `${step.depth * 1.25}rem` }}>
      <div className="flex min-h-5 flex-wrap items-center gap-2 text-sm leading-5">
        {runningNow ? (
          <Loader2 className="size-4 animate-spin text-brand-600" aria-label="running" />
        ) : step.endedAt ? (
          <CheckCircle2 className="size-4 text-green-600" aria-label="done" />
        ) : (
          <span className="inline-block size-4" aria-hidden />
        )}
        <span className={cx("font-mono", structural && "text-violet-700 dark:text-violet-300")}>{step.name}</span>
        {ms !== null && <span className="text-xs text-zinc-500">{formatDuration(ms)}</span>}
        {step.usage && (
          <span className="text-xs tabular-nums text-zinc-500" aria-label={`Tokens of ${step.name}`}>
            {tokensLabel(step.usage)}
          </span>
        )}
        {step.tokenEvents > 0 && (
          <span className="text-xs text-zinc-500">{step.tokens.length.toLocaleString()} characters streamed</span>
        )}
      </div>
      {step.tokens && (
        <p className="mt-1 max-h-40 overflow-auto rounded bg-zinc-50 p-2 text-xs leading-4 whitespace-pre-wrap dark:bg-zinc-950">
          {step.tokens}
          {runningNow && <span className="animate-pulse">▍</span>}
        </p>
      )}
      {step.output && (
        <Fold
          className="h-4 cursor-pointer truncate text-xs leading-4 text-zinc-600 dark:text-zinc-300"
          summary={step.output.split("\n")[0]}
        >
          {() => (
            <pre className="mt-1 max-h-60 overflow-auto rounded bg-zinc-50 p-2 text-xs whitespace-pre-wrap dark:bg-zinc-950">
              {step.output}
            </pre>
          )}
        </Fold>
      )}
      {step.sources.length > 0 && (
        <Fold
          className="h-4 cursor-pointer truncate text-xs leading-4 text-zinc-600 dark:text-zinc-300"
          summary={`${step.sources.length} sources`}
        >
          {() => (
            <ol className="mt-1 space-y-1 text-xs" aria-label={`Sources of ${step.name}`}>
              {step.sources.map((s) => (
                <li key={`${s.id}-${s.title}`} className="rounded border border-zinc-200 p-2 dark:border-zinc-800">
                  <span className="font-medium">[{s.id}]</span> {s.content}
                </li>
              ))}
            </ol>
          )}
        </Fold>
      )}
    </div>
  );
});

export function RunTraceView({ trace, live }: { trace: RunTrace; live: boolean }) {
  const box = useRef<HTMLDivElement>(null);
  const following = useRef(true);
  const steps = trace.steps;
  const virtualizer = useVirtualizer({
    count: steps.length,
    getScrollElement: () => box.current,
    estimateSize: (i) => rowHeight(steps[i]!, i),
    overscan: 3,
    getItemKey: (i) => steps[i]!.seq,
  });
  useEffect(() => {
    // Follow the newest step while the reader is at the end (only rows in view exist: scroll to it).
    const el = box.current;
    if (el && live && following.current) el.scrollTop = el.scrollHeight;
  }, [steps.length, live]);
  const onScroll = () => {
    const el = box.current;
    if (el) following.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
  };

  if (steps.length === 0)
    return (
      <p className="text-sm text-zinc-500">
        {live ? "Starting… the steps appear here as they run." : "No steps were recorded."}
      </p>
    );
  const items = virtualizer.getVirtualItems();
  return (
    <>
      {trace.usage && (
        <p className="mb-1 text-xs tabular-nums text-zinc-500" aria-label="Tokens in all">
          {steps.length.toLocaleString()} steps · {tokensLabel(trace.usage)} in all
        </p>
      )}
      <div
        ref={box}
        onScroll={onScroll}
        className="max-h-[36rem] overflow-y-auto"
        data-testid="trace-scroller"
        data-steps={steps.length}
      >
        <ol className="relative" aria-label="Steps" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((v) => {
            const s = steps[v.index]!;
            return (
              <li
                key={v.key}
                ref={virtualizer.measureElement}
                data-index={v.index}
                data-step={s.name}
                aria-posinset={v.index + 1}
                aria-setsize={steps.length}
                className={cx(
                  "absolute inset-x-0 top-0 [contain:layout_style]",
                  v.index > 0 && "border-t border-zinc-100 dark:border-zinc-800",
                )}
                style={{ transform: `translateY(${v.start}px)` }}
              >
                <StepRow step={s} live={live} />
              </li>
            );
          })}
        </ol>
      </div>
    </>
  );
}
