"use client";
/**
 * The live trace: one row per step as it starts, with its timing, the model tokens it used, its
 * output summary, streamed text and sources; the run's token total above. The rows are virtualised
 * (only those in view exist, measured as they render), so a run of 1,000 items with thousands of
 * steps scrolls as lightly as a short one; while the reader is at the end it follows the newest step.
 */
import { useVirtualizer } from "@tanstack/react-virtual";
import { CheckCircle2, Loader2 } from "lucide-react";
import { memo, useEffect, useRef } from "react";
import { formatDuration, formatTokens } from "@/app/_components/review/format.ts";
import { cx } from "@/app/_components/ui.tsx";
import { stepMs, type RunTrace, type TokenUsage, type TraceStep } from "@/server/shared/run-trace.ts";

const tokensLabel = (u: TokenUsage) => `${formatTokens(u.input)} in · ${formatTokens(u.output)} out tokens`;

const StepRow = memo(function StepRow({ step, live }: { step: TraceStep; live: boolean }) {
  const ms = stepMs(step);
  const structural = step.name === "loop" || step.name.startsWith("branch");
  const runningNow = live && step.endedAt === null && !structural;
  return (
    <div className="py-2" style={{ paddingLeft: `${step.depth * 1.25}rem` }}>
      <div className="flex flex-wrap items-center gap-2 text-sm">
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
        <p className="mt-1 max-h-40 overflow-auto rounded bg-zinc-50 p-2 text-xs whitespace-pre-wrap dark:bg-zinc-950">
          {step.tokens}
          {runningNow && <span className="animate-pulse">▍</span>}
        </p>
      )}
      {step.output && (
        <details className="mt-1">
          <summary className="cursor-pointer truncate text-xs text-zinc-600 dark:text-zinc-300">
            {step.output.split("\n")[0]}
          </summary>
          <pre className="mt-1 max-h-60 overflow-auto rounded bg-zinc-50 p-2 text-xs whitespace-pre-wrap dark:bg-zinc-950">
            {step.output}
          </pre>
        </details>
      )}
      {step.sources.length > 0 && (
        <details className="mt-1">
          <summary className="cursor-pointer text-xs text-zinc-600 dark:text-zinc-300">
            {step.sources.length} sources
          </summary>
          <ol className="mt-1 space-y-1 text-xs" aria-label={`Sources of ${step.name}`}>
            {step.sources.map((s) => (
              <li key={`${s.id}-${s.title}`} className="rounded border border-zinc-200 p-2 dark:border-zinc-800">
                <span className="font-medium">[{s.id}]</span> {s.content}
              </li>
            ))}
          </ol>
        </details>
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
    estimateSize: () => 40, // a step without output; longer rows are measured as they render
    overscan: 8,
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
        <ol
          className="relative divide-y divide-zinc-100 dark:divide-zinc-800"
          aria-label="Steps"
          style={{ height: virtualizer.getTotalSize() }}
        >
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
                className="absolute inset-x-0 top-0"
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
