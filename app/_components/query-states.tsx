"use client";
/** How a page shows a query that failed or has not answered yet: one look everywhere. */
import type { ReactNode } from "react";
import { errorInfo } from "@/app/_lib/trpc.ts";
import { Card, DelayedSkeleton, ErrorNotice } from "./ui.tsx";

interface QueryState {
  isError: boolean;
  error: unknown;
  refetch: () => unknown;
}

/** The query's failure as a notice, with "Try again" unless `retry` is false; nothing while it has not failed. */
export function QueryError({ query, retry = true }: { query: QueryState; retry?: boolean }) {
  if (!query.isError) return null;
  return (
    <ErrorNotice message={errorInfo(query.error).message} onRetry={retry ? () => void query.refetch() : undefined} />
  );
}

/** A detail page whose row is not there yet: the failure under the way back (`back`), or a skeleton while it loads. */
export function DetailNotLoaded({ query, back, retry }: { query: QueryState; back: ReactNode; retry?: boolean }) {
  if (!query.isError) return <DelayedSkeleton />;
  return (
    <>
      {back}
      <QueryError query={query} retry={retry} />
    </>
  );
}

/**
 * A list page's rows: a skeleton while the query runs, its failure, `empty` when there are none, else a
 * card with the list named `label` (`children` renders one row as an <li> with its key).
 */
export function QueryList<T>({
  query,
  label,
  empty,
  children,
}: {
  query: QueryState & { isPending: boolean; data: T[] | undefined };
  label: string;
  empty: ReactNode;
  children: (row: T) => ReactNode;
}) {
  return (
    <>
      {query.isPending && <DelayedSkeleton />}
      <QueryError query={query} />
      {query.data?.length === 0 && empty}
      {query.data && query.data.length > 0 && (
        <Card>
          <ul className="divide-y divide-zinc-200 dark:divide-zinc-800" aria-label={label}>
            {query.data.map((row) => children(row))}
          </ul>
        </Card>
      )}
    </>
  );
}
