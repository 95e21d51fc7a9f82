/** A review's life: which statuses exist and which of them mean "still going". */
export const REVIEW_STATUSES = ["pending", "queued", "running", "completed", "failed", "cancelled"] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];
export const ACTIVE_REVIEW_STATUSES = ["pending", "queued", "running"] as const satisfies readonly ReviewStatus[];
export const isActiveReview = (status: string): boolean =>
  (ACTIVE_REVIEW_STATUSES as readonly string[]).includes(status);
