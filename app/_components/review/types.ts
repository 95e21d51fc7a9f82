/** The review API's shapes as the browser receives them (dates arrive as ISO strings over httpLink). */
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/router.ts";

type Outputs = inferRouterOutputs<AppRouter>["reviews"];
export type ReviewListItem = Outputs["list"]["items"][number];
export type ReviewDetail = Outputs["get"];
export type ReviewFindingRow = Outputs["findings"][number];
export type ReviewEvent = Outputs["events"][number];
export type TrendPoint = Outputs["trend"][number];
export type ReviewStatus = ReviewListItem["status"];
/** What a share link's page gets of its review (`shares.review`): the review page's pieces take this. */
export type SharedReview = inferRouterOutputs<AppRouter>["shares"]["review"];

export { SEVERITIES, CATEGORIES, type Severity, type Category } from "@/server/shared/findings.ts";
export { isActiveReview as isActive } from "@/server/shared/statuses.ts";
