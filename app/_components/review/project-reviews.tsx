"use client";
/** The reviews section of a project page: its latest reviews (live while running) and the trend chart. */
import dynamic from "next/dynamic";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/app/_lib/trpc.ts";
import { Card, DelayedSkeleton } from "../ui.tsx";
import { ReviewRows } from "./review-rows.tsx";
import { isActive } from "./types.ts";

// The chart (recharts, a large script) sits below the first screen: its own chunk,
// fetched after the page is interactive (issue 28: ship what the first screen needs).
const TrendChart = dynamic(() => import("./trend-chart.tsx").then((m) => m.TrendChart), { ssr: false });

export function ProjectReviews({ projectUid }: { projectUid: string }) {
  const trpc = useTRPC();
  const { workspaceId } = useProjectWorkspace(projectUid);
  const reviews = useQuery({
    ...trpc.reviews.list.queryOptions({ workspaceId: workspaceId ?? "", projectUid, limit: 5 }),
    enabled: !!workspaceId,
    refetchInterval: (q) => (q.state.data?.items.some((r) => isActive(r.status)) ? 2000 : false),
  });
  return (
    <section className="mt-10 grid gap-6 xl:grid-cols-2" aria-label="Project reviews">
      <div>
        <div className="mb-3 flex items-center justify-between">
          <h2 className="text-sm font-semibold uppercase tracking-wide text-zinc-500">Reviews</h2>
          <Link href={`/reviews?project=${projectUid}`} className="text-sm text-brand-600 hover:underline">
            All reviews of this project
          </Link>
        </div>
        {reviews.isPending && workspaceId && <DelayedSkeleton rows={2} />}
        {reviews.data?.items.length === 0 && <p className="text-sm text-zinc-500">No reviews of this project yet.</p>}
        {reviews.data && reviews.data.items.length > 0 && (
          <ReviewRows reviews={reviews.data.items} showProject={false} />
        )}
      </div>
      <div>
        <h2 className="mb-3 text-sm font-semibold uppercase tracking-wide text-zinc-500">Trend</h2>
        <Card className="p-3">
          <TrendChart projectUid={projectUid} />
        </Card>
      </div>
    </section>
  );
}

/** The project's workspace (reviews.list filters by workspace); from the project record. */
function useProjectWorkspace(projectUid: string) {
  const trpc = useTRPC();
  const project = useQuery(trpc.projects.get.queryOptions({ uid: projectUid }));
  return { workspaceId: project.data?.workspaceId };
}
