"use client";
/** All reviews of the workspace, newest first: filter by project and status, load more, live status while running. */
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { Play, SearchCheck } from "lucide-react";
import { useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { ReviewRows } from "@/app/_components/review/review-rows.tsx";
import { StartReviewDialog } from "@/app/_components/review/start-review-dialog.tsx";
import { isActive } from "@/app/_components/review/types.ts";
import { Button, DelayedSkeleton, EmptyState, ErrorNotice, PageHeader } from "@/app/_components/ui.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { nextCursor } from "@/app/_lib/next-cursor.ts";
import { reviewsListInput, STATUSES } from "./list-input.ts";

const selectClass =
  "rounded-md border border-zinc-300 bg-white px-2 py-1 text-sm dark:border-zinc-700 dark:bg-zinc-900";

function ReviewsView() {
  const trpc = useTRPC();
  const router = useRouter();
  const params = useSearchParams();
  const { workspace, canEdit } = useWorkspace();
  const [starting, setStarting] = useState(false);
  // The same input the server's loader read (./page.tsx, ./list-input.ts).
  const input = reviewsListInput(workspace.id, params);
  const { projectUid, status } = input;
  const projects = useQuery(trpc.projects.list.queryOptions({ workspaceId: workspace.id }));
  const reviews = useInfiniteQuery(
    trpc.reviews.list.infiniteQueryOptions(input, {
      getNextPageParam: nextCursor,
      // Poll every 2 s while anything on screen is still queued or running.
      refetchInterval: (q) => (q.state.data?.pages.some((p) => p.items.some((r) => isActive(r.status))) ? 2000 : false),
    }),
  );
  const items = reviews.data?.pages.flatMap((p) => p.items) ?? [];

  function setFilter(key: "project" | "status", value: string) {
    const next = new URLSearchParams(params.toString());
    if (value) next.set(key, value);
    else next.delete(key);
    router.replace(`/reviews${next.size ? `?${next.toString()}` : ""}`);
  }

  const startButton = canEdit && (
    <Button onClick={() => setStarting(true)} disabled={projects.data?.length === 0}>
      <Play className="size-4" aria-hidden /> Start review
    </Button>
  );

  return (
    <>
      <PageHeader title="Reviews" description="Every review in this workspace, newest first." actions={startButton} />
      <div className="mb-4 flex flex-wrap items-center gap-4 text-sm">
        <label className="flex items-center gap-1.5">
          Project
          <select
            aria-label="Filter by project"
            className={selectClass}
            value={projectUid ?? ""}
            onChange={(e) => setFilter("project", e.target.value)}
          >
            <option value="">All projects</option>
            {projects.data?.map((p) => (
              <option key={p.uid} value={p.uid}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        <div role="group" aria-label="Filter by status" className="flex flex-wrap gap-1">
          {["", ...STATUSES].map((s) => (
            <button
              key={s || "all"}
              type="button"
              aria-pressed={(status ?? "") === s}
              onClick={() => setFilter("status", s)}
              className={
                (status ?? "") === s
                  ? "rounded-full bg-zinc-900 px-2.5 py-0.5 text-xs font-medium text-white dark:bg-white dark:text-zinc-900"
                  : "rounded-full px-2.5 py-0.5 text-xs text-zinc-600 hover:bg-zinc-100 dark:text-zinc-400 dark:hover:bg-zinc-800"
              }
            >
              {s || "all"}
            </button>
          ))}
        </div>
      </div>
      {reviews.isPending && <DelayedSkeleton />}
      {reviews.isError && <ErrorNotice message={errorInfo(reviews.error).message} onRetry={() => reviews.refetch()} />}
      {reviews.data && items.length === 0 && (
        <EmptyState
          icon={<SearchCheck className="size-8" />}
          title={projectUid || status ? "No reviews match" : "No reviews yet"}
          action={!projectUid && !status ? startButton : undefined}
        >
          {projectUid || status
            ? "Try another project or status."
            : projects.data?.length === 0
              ? "Create a project and import its code, then start a review here or on the project page."
              : "Start a review of one of your projects: the static engine needs no model or API key."}
        </EmptyState>
      )}
      {items.length > 0 && <ReviewRows reviews={items} />}
      {reviews.hasNextPage && (
        <div className="mt-4 flex justify-center">
          <Button variant="secondary" busy={reviews.isFetchingNextPage} onClick={() => void reviews.fetchNextPage()}>
            Load more
          </Button>
        </div>
      )}
      <StartReviewDialog open={starting} onClose={() => setStarting(false)} projectUid={projectUid} />
    </>
  );
}

// No Suspense boundary around the view, though it reads useSearchParams: see app/(app)/projects/[uid]/project-page.tsx.
export default function ReviewsPage() {
  return <ReviewsView />;
}
