"use client";
/** Findings by severity across a project's completed reviews (stacked bars) with the overall score (line). */
import { useQuery } from "@tanstack/react-query";
import { TrendingUp } from "lucide-react";
import { Bar, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { useTRPC } from "@/app/_lib/trpc.ts";
import { DelayedSkeleton, EmptyState } from "../ui.tsx";
import { QueryError } from "../query-states.tsx";
import { SEVERITY_COLOR } from "./format.ts";
import { SEVERITIES } from "./types.ts";

const LEGEND_ORDER: string[] = [...SEVERITIES, "score"];
/** Axis labels in the text colour of the theme. */
const TICK = { fontSize: 11, fill: "currentColor" };

export function TrendChart({ projectUid }: { projectUid: string }) {
  const trpc = useTRPC();
  const trend = useQuery(trpc.reviews.trend.queryOptions({ projectUid }));
  if (trend.isPending) return <DelayedSkeleton rows={2} />;
  if (trend.isError) return <QueryError query={trend} />;
  if (trend.data.length === 0) {
    return (
      <EmptyState icon={<TrendingUp className="size-8" />} title="No completed reviews yet">
        The trend shows findings by severity and the score across this project&apos;s completed reviews.
      </EmptyState>
    );
  }
  const data = trend.data.map((p) => ({
    ...p,
    label: p.finishedAt
      ? new Date(p.finishedAt).toLocaleDateString(undefined, {
          month: "short",
          day: "numeric",
          hour: "2-digit",
          minute: "2-digit",
          hourCycle: "h23",
        })
      : "",
    score: p.score === null ? null : Math.round(p.score),
  }));
  return (
    <figure aria-label="Findings trend" className="h-72 w-full text-zinc-600 dark:text-zinc-300">
      <ResponsiveContainer width="100%" height="100%">
        <ComposedChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: -16 }} maxBarSize={48}>
          <CartesianGrid strokeDasharray="3 3" stroke="currentColor" strokeOpacity={0.1} />
          {/* Axes, grid and tooltip follow the theme (currentColor and the --chart-tooltip-* variables). */}
          <XAxis dataKey="label" tick={TICK} stroke="currentColor" />
          <YAxis yAxisId="count" allowDecimals={false} tick={TICK} stroke="currentColor" />
          <YAxis yAxisId="score" orientation="right" domain={[0, 100]} tick={TICK} stroke="currentColor" />
          <Tooltip
            contentStyle={{
              fontSize: 12,
              background: "var(--chart-tooltip-bg)",
              borderColor: "var(--chart-tooltip-border)",
              color: "inherit",
            }}
            cursor={{ fill: "currentColor", fillOpacity: 0.08 }}
          />
          {/* Severities worst first (the default sorts alphabetically), the score last. */}
          <Legend wrapperStyle={{ fontSize: 12 }} itemSorter={(item) => LEGEND_ORDER.indexOf(String(item.dataKey))} />
          {SEVERITIES.map((s) => (
            <Bar
              key={s}
              yAxisId="count"
              dataKey={s}
              stackId="findings"
              fill={SEVERITY_COLOR[s]}
              name={s}
              isAnimationActive={false}
            />
          ))}
          <Line
            yAxisId="score"
            type="monotone"
            dataKey="score"
            name="score"
            stroke="var(--color-brand-500)"
            strokeWidth={2}
            dot={{ r: 3 }}
            connectNulls
            isAnimationActive={false}
          />
        </ComposedChart>
      </ResponsiveContainer>
      <figcaption className="sr-only">
        {data.length} completed review{data.length === 1 ? "" : "s"}; latest score {data[data.length - 1]!.score ?? "—"}
        .
      </figcaption>
    </figure>
  );
}
