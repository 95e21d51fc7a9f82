/**
 * What a share link shows its spectator over HTTP (the public `shares.*` procedures): the review, its
 * findings with their team votes and thread counts, and its room's log (the activity panel's fallback
 * when the socket cannot connect; the chat is read over the socket). Each call checks the token
 * again, and reaches only the review the link was made for — never another review of the project,
 * nothing of the workspace around it.
 */
import type { ReviewService } from "../review/index.ts";
import type { ShareService } from "./service.ts";

export function createSpectatorReads(deps: {
  shares: Pick<ShareService, "open">;
  reviews: Pick<ReviewService, "shared">;
}) {
  const reviewOf = async (token: string) => deps.reviews.shared(await deps.shares.open(token));
  return {
    review: async (token: string) => (await reviewOf(token)).get(),
    findings: async (token: string) => (await reviewOf(token)).findings(),
    events: async (token: string, afterSeq: number) => (await reviewOf(token)).events(afterSeq),
  };
}

export type SpectatorReads = ReturnType<typeof createSpectatorReads>;
