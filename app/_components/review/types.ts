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

export const SEVERITIES = ["critical", "high", "medium", "low", "info"] as const;
export type Severity = (typeof SEVERITIES)[number];
export const CATEGORIES = [
  "security",
  "correctness",
  "reliability",
  "performance",
  "maintainability",
  "style",
  "testing",
  "documentation",
] as const;
export type Category = (typeof CATEGORIES)[number];
export const ACTIVE_STATUSES: readonly ReviewStatus[] = ["pending", "queued", "running"];
export const isActive = (status: ReviewStatus) => ACTIVE_STATUSES.includes(status);
