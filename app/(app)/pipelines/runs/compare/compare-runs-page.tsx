"use client";
/**
 * Two runs side by side (`?a=<run>&b=<run>`, from a pipeline's run history): what each ran (version,
 * data, status, time), their evaluation metrics in one table with the difference, and the parameters
 * that differ between them.
 */
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { DetailNotLoaded } from "@/app/_components/query-states.tsx";
import { formatDate, formatDuration } from "@/app/_components/review/format.ts";
import { BackLink, Card, PageHeader, cx } from "@/app/_components/ui.tsx";
import { useTRPC } from "@/app/_lib/trpc.ts";
import { useHydrated } from "@/app/_lib/use-hydrated.ts";
import { datasetLabel } from "../../_components/run-actions.ts";
import { fmt } from "../../_components/run-results.tsx";
import { RunStatus } from "../../_components/run-status.tsx";
import { galleryHref, pipelineHref, runHref, type RunComparison } from "../../_components/types.ts";

type Side = RunComparison["a"];

function RunSummary({ run, label }: { run: Side; label: string }) {
  // Dates in the server's form until hydrated (app/_lib/use-hydrated.ts).
  const local = useHydrated();
  const ms = run.finishedAt ? new Date(run.finishedAt).getTime() - new Date(run.createdAt).getTime() : null;
  return (
    <section aria-label={`Run ${label}`}>
      <Card className="p-4 text-sm">
        <h2 className="mb-1 flex items-center gap-2 font-semibold">
          Run {label} <RunStatus status={run.status} />
        </h2>
        <p>
          <Link href={runHref(run.uid)} className="text-brand-600 hover:underline">
            {formatDate(run.createdAt, local)}
          </Link>
          {run.createdBy ? ` by ${run.createdBy}` : ""}
        </p>
        <p className="text-zinc-500">
          {run.pipelineName}
          {run.pipelineVersion ? ` · version ${run.pipelineVersion}` : ""} · on {datasetLabel(run.dataset)}
          {ms !== null ? ` · took ${formatDuration(ms)}` : ""}
          {run.steps !== null ? ` · ${run.steps} steps` : ""}
        </p>
        {run.answer && <p className="mt-1 truncate text-xs">Answer: {run.answer}</p>}
        {run.error && <p className="mt-1 text-xs text-amber-700 dark:text-amber-300">{run.error}</p>}
      </Card>
    </section>
  );
}

function Comparison({ a, b }: { a: string; b: string }) {
  const trpc = useTRPC();
  const query = useQuery(trpc.pipelines.compareRuns.queryOptions({ a, b }));
  const back = <BackLink href="/pipelines">Pipelines</BackLink>;
  if (query.isError || !query.data) return <DetailNotLoaded query={query} back={back} />;
  const c = query.data;
  const pipeline = c.a.pipelineUid
    ? pipelineHref(c.a.pipelineUid)
    : c.a.galleryKey
      ? galleryHref(c.a.galleryKey)
      : null;
  return (
    <>
      {pipeline ? <BackLink href={`${pipeline}?tab=runs`}>Runs of {c.a.pipelineName}</BackLink> : back}
      <PageHeader
        title="Compare runs"
        description={c.samePipeline ? `Two runs of ${c.a.pipelineName}` : `${c.a.pipelineName} and ${c.b.pipelineName}`}
      />
      <div className="grid gap-4 md:grid-cols-2">
        <RunSummary run={c.a} label="A" />
        <RunSummary run={c.b} label="B" />
      </div>

      <Card className="mt-4 p-4">
        <h2 className="mb-2 text-sm font-semibold">Metrics</h2>
        {c.metrics.length === 0 ? (
          <p className="text-sm text-zinc-500">
            Neither run evaluated anything (no evaluation step, or it has not finished).
          </p>
        ) : (
          <div className="overflow-x-auto">
            <table className="min-w-full text-sm" aria-label="Metrics side by side">
              <thead>
                <tr className="text-left text-xs text-zinc-500">
                  <th className="py-1 pr-4 font-medium">step</th>
                  <th className="py-1 pr-4 font-medium">metric</th>
                  <th className="py-1 pr-4 font-medium">A</th>
                  <th className="py-1 pr-4 font-medium">B</th>
                  <th className="py-1 pr-4 font-medium">B − A</th>
                </tr>
              </thead>
              <tbody>
                {c.metrics.map((m) => (
                  <tr key={`${m.step} ${m.metric}`} className="border-t border-zinc-100 dark:border-zinc-800">
                    <td className="py-1 pr-4 font-mono text-xs text-zinc-500">{m.step}</td>
                    <th scope="row" className="py-1 pr-4 text-left font-mono font-normal">
                      {m.metric}
                    </th>
                    <td className="py-1 pr-4 tabular-nums">{fmt(m.a)}</td>
                    <td className="py-1 pr-4 tabular-nums">{fmt(m.b)}</td>
                    <td
                      className={cx(
                        "py-1 pr-4 tabular-nums",
                        m.delta !== null && m.delta > 0 && "text-green-700 dark:text-green-400",
                        m.delta !== null && m.delta < 0 && "text-red-700 dark:text-red-400",
                      )}
                    >
                      {m.delta === null ? "—" : `${m.delta > 0 ? "+" : ""}${fmt(m.delta)}`}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Card>

      <Card className="mt-4 p-4">
        <h2 className="mb-2 text-sm font-semibold">Parameters that differ</h2>
        {c.parameters.length === 0 ? (
          <p className="text-sm text-zinc-500">Both runs used the same parameters.</p>
        ) : (
          <table className="min-w-full text-sm" aria-label="Parameter differences">
            <thead>
              <tr className="text-left text-xs text-zinc-500">
                <th className="py-1 pr-4 font-medium">parameter</th>
                <th className="py-1 pr-4 font-medium">A</th>
                <th className="py-1 pr-4 font-medium">B</th>
              </tr>
            </thead>
            <tbody>
              {c.parameters.map((p) => (
                <tr key={p.path} className="border-t border-zinc-100 align-top dark:border-zinc-800">
                  <th scope="row" className="py-1 pr-4 text-left font-mono font-normal">
                    {p.path}
                  </th>
                  <td className="py-1 pr-4 font-mono text-xs break-all">
                    {p.a ?? <em className="text-zinc-400">not set</em>}
                  </td>
                  <td className="py-1 pr-4 font-mono text-xs break-all">
                    {p.b ?? <em className="text-zinc-400">not set</em>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Card>
    </>
  );
}

function ComparePage() {
  const search = useSearchParams();
  const [a, b] = [search.get("a") ?? "", search.get("b") ?? ""];
  return <Comparison key={`${a}:${b}`} a={a} b={b} />;
}

// No Suspense boundary around the view, though it reads useSearchParams: see app/(app)/projects/[uid]/project-page.tsx.
export default function CompareRunsPage() {
  return <ComparePage />;
}
