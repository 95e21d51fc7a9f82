import { Prefetch, type PageLoad } from "@/app/_lib/server-prefetch.tsx";
import ReviewPage from "./review-page.tsx";

/** The review page's first reads (./review-page.tsx asks for the same): the review, and its
 * findings when it has finished (a running review's are read when it completes). */
async function load({ trpc, fetch }: PageLoad, uid: string) {
  const review = await fetch(trpc.reviews.get.queryOptions({ uid }));
  if (review.status === "completed") await fetch(trpc.reviews.findings.queryOptions({ reviewUid: uid }));
}

/** The review page, with its first data in the HTML (app/_lib/server-prefetch.tsx). */
export default async function Page({ params }: { params: Promise<{ uid: string }> }) {
  const { uid } = await params;
  return (
    <Prefetch load={(l) => load(l, uid)}>
      <ReviewPage />
    </Prefetch>
  );
}
