import { Prefetch, type PageLoad } from "@/app/_lib/server-prefetch.tsx";
import { nextCursor } from "@/app/_lib/next-cursor.ts";
import { reviewsListInput } from "./list-input.ts";
import ReviewsPage from "./reviews-page.tsx";

type Search = Record<string, string | string[] | undefined>;

/** The reviews list's first reads (./reviews-page.tsx asks for the same): the workspace's projects
 * (the filter) and the first page of its reviews, filtered by `?project=` and `?status=`. */
async function load({ trpc, fetch, fetchInfinite, workspaceId: current }: PageLoad, search: Search) {
  const workspaceId = await current();
  if (!workspaceId) return;
  const get = (key: string) => [search[key]].flat()[0] ?? null;
  await Promise.all([
    fetch(trpc.projects.list.queryOptions({ workspaceId })),
    fetchInfinite(
      trpc.reviews.list.infiniteQueryOptions(reviewsListInput(workspaceId, { get }), { getNextPageParam: nextCursor }),
    ),
  ]);
}

/** The reviews list, with its first data in the HTML (app/_lib/server-prefetch.tsx). */
export default async function Page({ searchParams }: { searchParams: Promise<Search> }) {
  const search = await searchParams;
  return (
    <Prefetch load={(l) => load(l, search)}>
      <ReviewsPage />
    </Prefetch>
  );
}
