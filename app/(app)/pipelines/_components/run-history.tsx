"use client";
/**
 * A pipeline's runs, newest first: status, when, on what, which version, and the parameters each
 * kept. Members re-run a run as it ran; tick two runs to compare them side by side.
 */
import { useQuery } from "@tanstack/react-query";
import { GitCompare, RotateCcw } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { QueryList } from "@/app/_components/query-states.tsx";
import { formatDate } from "@/app/_components/review/format.ts";
import { Button } from "@/app/_components/ui.tsx";
import { useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { datasetLabel, useRerun } from "./run-actions.ts";
import { RunStatus } from "./run-status.tsx";
import { compareHref, runHref } from "./types.ts";
import { YamlText } from "./yaml-text.tsx";

export function RunHistory({
  workspaceId,
  pipelineUid,
  galleryKey,
}: {
  workspaceId: string;
  pipelineUid?: string;
  galleryKey?: string;
}) {
  const trpc = useTRPC();
  const { canEdit } = useWorkspace();
  const runs = useQuery({
    ...trpc.pipelines.runs.queryOptions({
      workspaceId,
      ...(pipelineUid ? { pipelineUid } : {}),
      ...(galleryKey ? { galleryKey } : {}),
    }),
    refetchInterval: (q) => (q.state.data?.some((r) => r.status === "running") ? 2000 : false),
  });
  const rerun = useRerun();
  // The two runs ticked to compare, in the order they were ticked (the first is "A").
  const [picked, setPicked] = useState<string[]>([]);
  const toggle = (uid: string) =>
    setPicked((p) => (p.includes(uid) ? p.filter((x) => x !== uid) : [...p, uid].slice(-2)));

  return (
    <div className="space-y-2">
      {(runs.data?.length ?? 0) > 1 && (
        <div className="flex flex-wrap items-center gap-2 text-xs text-zinc-500">
          {picked.length === 2 ? (
            <Link
              href={compareHref(picked[0]!, picked[1]!)}
              className="inline-flex items-center gap-1 rounded-md border border-brand-600 px-2 py-1 font-medium text-brand-700 hover:bg-brand-50 dark:text-brand-300 dark:hover:bg-brand-950"
            >
              <GitCompare className="size-3.5" aria-hidden /> Compare the 2 runs
            </Link>
          ) : (
            <span>Tick two runs to compare them.</span>
          )}
        </div>
      )}
      <QueryList
        query={runs}
        label="Runs"
        empty={<p className="text-sm text-zinc-500">No runs yet. Run it to see its steps stream here.</p>}
      >
        {(r) => (
          <li key={r.uid} className="px-3 py-2 text-sm">
            <div className="flex flex-wrap items-center gap-2">
              <input
                type="checkbox"
                className="size-4"
                aria-label={`Compare the run of ${formatDate(r.createdAt)}`}
                checked={picked.includes(r.uid)}
                onChange={() => toggle(r.uid)}
              />
              <RunStatus status={r.status} />
              <Link href={runHref(r.uid)} className="font-medium text-brand-600 hover:underline">
                {formatDate(r.createdAt)}
              </Link>
              <span className="min-w-0 flex-1 truncate text-zinc-500">
                {datasetLabel(r.dataset)}
                {r.pipelineVersion ? ` · version ${r.pipelineVersion}` : ""}
                {r.steps !== null ? ` · ${r.steps} steps` : ""}
                {r.createdBy ? ` · ${r.createdBy}` : ""}
              </span>
              {canEdit && r.status !== "running" && (
                <Button
                  variant="ghost"
                  className="text-xs"
                  busy={rerun.isPending && rerun.variables?.uid === r.uid}
                  onClick={() => rerun.mutate({ uid: r.uid })}
                  aria-label={`Re-run the run of ${formatDate(r.createdAt)}`}
                  title="Run again with this run's version, parameters and data"
                >
                  <RotateCcw className="size-3.5" aria-hidden /> Re-run
                </Button>
              )}
            </div>
            {r.answer && <p className="mt-1 truncate text-xs text-zinc-600 dark:text-zinc-300">Answer: {r.answer}</p>}
            {r.error && <p className="mt-1 truncate text-xs text-amber-700 dark:text-amber-300">{r.error}</p>}
            <details className="mt-1">
              <summary className="cursor-pointer text-xs text-zinc-500">Parameters</summary>
              <pre className="mt-1 max-h-60 overflow-auto rounded bg-zinc-50 p-2 text-xs dark:bg-zinc-950">
                <YamlText value={r.params ?? {}} />
              </pre>
            </details>
          </li>
        )}
      </QueryList>
    </div>
  );
}
