"use client";
/** A pipeline's saved versions and the line diff between any two (YAML and parameter file). */
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { DiffView } from "@/app/_components/diff/diff-view.tsx";
import { Badge, DelayedSkeleton, Select } from "@/app/_components/ui.tsx";
import { QueryError } from "@/app/_components/query-states.tsx";
import { formatDate } from "@/app/_components/review/format.ts";
import { useTRPC } from "@/app/_lib/trpc.ts";

export function VersionsPanel({ uid }: { uid: string }) {
  const trpc = useTRPC();
  const versions = useQuery(trpc.pipelines.versions.queryOptions({ uid }));
  const latest = versions.data?.[0]?.version ?? 1;
  const [pick, setPick] = useState<{ from: number; to: number } | null>(null);
  const from = pick?.from ?? Math.max(1, latest - 1);
  const to = pick?.to ?? latest;
  const diff = useQuery({ ...trpc.pipelines.diff.queryOptions({ uid, from, to }), enabled: Boolean(versions.data) });
  if (versions.isPending) return <DelayedSkeleton rows={2} />;
  if (versions.isError) return <QueryError query={versions} />;
  const options = versions.data.map((v) => (
    <option key={v.version} value={v.version}>
      version {v.version}
    </option>
  ));
  return (
    <div className="space-y-4">
      <ol className="divide-y divide-zinc-200 text-sm dark:divide-zinc-800" aria-label="Versions">
        {versions.data.map((v) => (
          <li key={v.version} className="flex flex-wrap items-center gap-2 py-1.5">
            <span className="font-medium">Version {v.version}</span>
            {v.valid ? <Badge tone="green">valid</Badge> : <Badge tone="amber">draft · {v.errors} errors</Badge>}
            <span className="text-zinc-500">
              {formatDate(v.createdAt)}
              {v.createdBy ? ` · ${v.createdBy}` : ""}
              {v.message ? ` · ${v.message}` : ""}
            </span>
          </li>
        ))}
      </ol>
      {versions.data.length > 1 && (
        <div className="space-y-3">
          <div className="flex flex-wrap items-center gap-2 text-sm">
            <label htmlFor="diff-from">Compare</label>
            <Select
              id="diff-from"
              size="compact"
              value={from}
              onChange={(e) => setPick({ from: Number(e.target.value), to })}
            >
              {options}
            </Select>
            <label htmlFor="diff-to">with</label>
            <Select
              id="diff-to"
              size="compact"
              value={to}
              onChange={(e) => setPick({ from, to: Number(e.target.value) })}
            >
              {options}
            </Select>
            {diff.data && (
              <span className="text-zinc-500">
                +{diff.data.source.added + diff.data.parameters.added} −
                {diff.data.source.removed + diff.data.parameters.removed}
              </span>
            )}
          </div>
          <QueryError query={diff} />
          {diff.data && (
            <>
              <DiffView lines={diff.data.source.lines} label="Pipeline YAML" title="Pipeline YAML" />
              <DiffView lines={diff.data.parameters.lines} label="Parameters" title="Parameters" />
            </>
          )}
        </div>
      )}
    </div>
  );
}
