import { preloadQueries } from "../../pipelines/_components/preload-queries.ts";
import ReviewPage from "./review-page.tsx";

/** The review page: its first reads (the review, its findings) fetched by the browser with the page's scripts. */
export default async function Page({ params }: { params: Promise<{ uid: string }> }) {
  const { uid } = await params;
  preloadQueries({ path: "reviews.get", input: { uid } }, { path: "reviews.findings", input: { reviewUid: uid } });
  return <ReviewPage />;
}
