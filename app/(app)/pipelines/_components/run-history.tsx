"use client";
/** A pipeline's runs, newest first: status, when, on what, which version, and the parameters each kept. */
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { stringify } from "yaml";
import { Badge, DelayedSkeleton } from "@/app/_components/ui.tsx";
import { QueryError } from "@/app/_components/query-states.tsx";
import { formatDate } from "@/app/_components/review/format.ts";
import { useTRPC } from "@/app/_lib/trpc.ts";
import { runHref, runStatusTone, type RunItem } from "./types.ts";

export function datasetLabel(d: RunItem["dataset"]): string {
  if (!d || d.kind === "sample") return "sample";
  if (d.kind === "chat") return `question: ${d.question}`;
  return "items" in d ? `${d.name} (${d.items} rows)` : d.name;
}

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
  const runs = useQuery({
    ...trpc.pipelines.runs.queryOptions({
      workspaceId,
      ...(pipelineUid ? { pipelineUid } : {}),
      ...(galleryKey ? { galleryKey } : {}),
    }),
    refetchInterval: (q) => (q.state.data?.some((r) => r.status === "running") ? 2000 : false),
  });
  if (runs.isPending) return <DelayedSkeleton rows={2} />;
  if (runs.isError) return <QueryError query={runs} />;
  if (runs.data.length === 0)
    return <p className="text-sm text-zinc-500">No runs yet. Run it to see its steps stream here.</p>;
  return (
    <ul className="divide-y divide-zinc-200 dark:divide-zinc-800" aria-label="Runs">
      {runs.data.map((r) => (
        <li key={r.uid} className="py-2 text-sm">
          <div className="flex flex-wrap items-center gap-2">
            <Badge tone={runStatusTone(r.status)}>{r.status}</Badge>
            <Link href={runHref(r.uid)} className="font-medium text-brand-600 hover:underline">
              {formatDate(r.createdAt)}
            </Link>
            <span className="min-w-0 truncate text-zinc-500">
              {datasetLabel(r.dataset)}
              {r.pipelineVersion ? ` · version ${r.pipelineVersion}` : ""}
              {r.steps !== null ? ` · ${r.steps} steps` : ""}
              {r.createdBy ? ` · ${r.createdBy}` : ""}
            </span>
          </div>
          {r.answer && <p className="mt-1 truncate text-xs text-zinc-600 dark:text-zinc-300">Answer: {r.answer}</p>}
          {r.error && <p className="mt-1 truncate text-xs text-amber-700 dark:text-amber-300">{r.error}</p>}
          <details className="mt-1">
            <summary className="cursor-pointer text-xs text-zinc-500">Parameters</summary>
            <pre className="mt-1 max-h-60 overflow-auto rounded bg-zinc-50 p-2 text-xs dark:bg-zinc-950">
              {stringify(r.params ?? {}, { lineWidth: 0 })}
            </pre>
          </details>
        </li>
      ))}
    </ul>
  );
}
