"use client";
/** A finished run's evaluation tables and its cases, one at a time (the memory file's items, step by step). */
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Button, Card, DelayedSkeleton } from "@/app/_components/ui.tsx";
import { QueryError } from "@/app/_components/query-states.tsx";
import { useTRPC } from "@/app/_lib/trpc.ts";
import type { RunDetail } from "./types.ts";

export const fmt = (v: number | boolean | null | undefined) =>
  v === null || v === undefined
    ? "—"
    : typeof v === "boolean"
      ? v
        ? "yes"
        : "no"
      : Number.isInteger(v)
        ? String(v)
        : v.toFixed(4);

export function EvaluationTables({ tables }: { tables: RunDetail["evaluation"] }) {
  return (
    <>
      {tables.map((t) => {
        const items = Math.max(0, ...t.rows.map((r) => r.perItem?.length ?? 0));
        const compareKeys = [...new Set(t.rows.flatMap((r) => Object.keys(r.compare ?? {})))];
        return (
          <Card key={t.step} className="p-4">
            <h2 className="mb-2 text-sm font-semibold">Evaluation · {t.step}</h2>
            <div className="overflow-x-auto">
              <table className="min-w-full text-sm" aria-label={`Evaluation results of ${t.step}`}>
                <thead>
                  <tr className="text-left text-xs text-zinc-500">
                    <th className="py-1 pr-4 font-medium">metric</th>
                    {compareKeys.length === 0 && <th className="py-1 pr-4 font-medium">mean</th>}
                    {compareKeys.map((k) => (
                      <th key={k} className="py-1 pr-4 font-medium">
                        {k}
                      </th>
                    ))}
                    {Array.from({ length: Math.min(items, 20) }, (_, i) => (
                      <th key={i} className="py-1 pr-3 font-medium">
                        #{i + 1}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {t.rows.map((r) => (
                    <tr key={r.metric} className="border-t border-zinc-100 dark:border-zinc-800">
                      <th scope="row" className="py-1 pr-4 text-left font-mono font-normal">
                        {r.metric}
                      </th>
                      {compareKeys.length === 0 && <td className="py-1 pr-4 tabular-nums">{fmt(r.mean)}</td>}
                      {compareKeys.map((k) => (
                        <td key={k} className="py-1 pr-4 tabular-nums">
                          {fmt(r.compare?.[k])}
                        </td>
                      ))}
                      {r.perItem?.slice(0, 20).map((v, i) => (
                        <td key={i} className="py-1 pr-3 text-zinc-500 tabular-nums">
                          {fmt(Number.isNaN(v) ? null : v)}
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {items > 20 && <p className="mt-1 text-xs text-zinc-500">Per-item scores of the first 20 items shown.</p>}
          </Card>
        );
      })}
    </>
  );
}

const render = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v, null, 2));

export function CaseView({ runUid, count }: { runUid: string; count: number }) {
  const trpc = useTRPC();
  const [n, setN] = useState(1);
  const c = useQuery(trpc.pipelines.runCase.queryOptions({ uid: runUid, case: n }));
  return (
    <Card className="p-4">
      <div className="mb-2 flex flex-wrap items-center justify-between gap-2">
        <h2 className="text-sm font-semibold">
          Case {n} of {count}
        </h2>
        <div className="flex items-center gap-1">
          <Button variant="secondary" className="text-xs" disabled={n <= 1} onClick={() => setN(n - 1)}>
            ← Previous case
          </Button>
          <Button variant="secondary" className="text-xs" disabled={n >= count} onClick={() => setN(n + 1)}>
            Next case →
          </Button>
        </div>
      </div>
      <QueryError query={c} />
      {c.isPending ? (
        <DelayedSkeleton rows={2} />
      ) : (
        c.data && (
          <ol className="space-y-2 text-sm" aria-label={`Case ${n}`}>
            {c.data.missing && <li className="text-zinc-500">{c.data.missing}</li>}
            {c.data.steps.map((s, i) => (
              <li key={`${s.step}-${i}`}>
                <p className="font-mono text-xs font-semibold">
                  {i + 1}. {s.step}
                </p>
                <dl className="mt-1 space-y-1 pl-4">
                  {Object.entries(s.values).map(([k, v]) => (
                    <div key={k} className="text-xs">
                      <dt className="font-mono text-zinc-500">{k}</dt>
                      <dd className="max-h-40 overflow-auto whitespace-pre-wrap">{render(v)}</dd>
                    </div>
                  ))}
                </dl>
              </li>
            ))}
          </ol>
        )
      )}
    </Card>
  );
}
