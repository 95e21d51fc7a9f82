/**
 * Rooms under load (issue 13, Performance): fan-out of token deltas to 200 watchers of one room
 * against a raw `ws` server (bench/rooms/fanout.ts), and the review page of a review with 2,000
 * findings and 20,000 events in headless Chromium (bench/rooms/review-page.ts).
 * `npm run bench -- rooms fanout` (or `page`) runs one part.
 */
import { measureFanout } from "./rooms/fanout.ts";
import { measureReviewPage } from "./rooms/review-page.ts";

export default async function rooms() {
  const only = process.argv[3];
  return {
    ...(only && only !== "fanout" ? {} : { fanout: await measureFanout() }),
    ...(only && only !== "page" ? {} : { reviewPage: await measureReviewPage() }),
  };
}
