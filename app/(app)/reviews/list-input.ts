/**
 * The reviews list's first read, shared by the page's server loader (./page.tsx) and its client
 * (./reviews-page.tsx) so both ask under the same key: the filters from the address, and the page size.
 */
import type { ReviewStatus } from "@/app/_components/review/types.ts";

export const STATUSES: ReviewStatus[] = ["queued", "running", "completed", "failed", "cancelled"];
const PAGE_SIZE = 20;

/** `reviews.list`'s input for the address's `?project=` and `?status=` (an unknown status: all). */
export function reviewsListInput(workspaceId: string, params: { get(key: string): string | null }) {
  const projectUid = params.get("project") || undefined;
  const status = (STATUSES as string[]).includes(params.get("status") ?? "")
    ? (params.get("status") as ReviewStatus)
    : undefined;
  return { workspaceId, projectUid, status, limit: PAGE_SIZE };
}
