"use client";
/** The live trace: one row per step as it starts, with its timing, output summary, streamed tokens and sources. */
import { CheckCircle2, Loader2 } from "lucide-react";
import { formatDuration } from "@/app/_components/review/format.ts";
import { cx } from "@/app/_components/ui.tsx";
import { stepMs, type RunTrace, type TraceStep } from "@/server/shared/run-trace.ts";

function StepRow({ step, live }: { step: TraceStep; live: boolean }) {
  const ms = stepMs(step);
  const structural = step.name === "loop" || step.name.startsWith("branch");
  const runningNow = live && step.endedAt === null && !structural;
  return (
    <li className="py-2" style={{ paddingLeft: `${step.depth * 1.25}rem` }} data-step={step.name}>
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
    </li>
  );
}

export function RunTraceView({ trace, live }: { trace: RunTrace; live: boolean }) {
  if (trace.steps.length === 0)
    return (
      <p className="text-sm text-zinc-500">
        {live ? "Starting… the steps appear here as they run." : "No steps were recorded."}
      </p>
    );
  return (
    <ol className="divide-y divide-zinc-100 dark:divide-zinc-800" aria-label="Steps">
      {trace.steps.map((s) => (
        <StepRow key={s.seq} step={s} live={live} />
      ))}
    </ol>
  );
}
