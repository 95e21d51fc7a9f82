"use client";
/**
 * A review's findings on its page, read together with the review; when the review finishes (or is
 * found finished) the lists that show it are refreshed, and the findings read again if read while it ran.
 */
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { isActive } from "@/app/_components/review/types.ts";
import { useTRPC } from "@/app/_lib/trpc.ts";

export function useReviewFindings(uid: string, review: { status: string | undefined; isError: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { status } = review;
  // Asked for together with the review (most reviews one opens are finished): the list does not wait
  // for reviews.get's round trip. A review that turns out to be running has none yet; its findings
  // are read again when it completes.
  const findings = useQuery({
    ...trpc.reviews.findings.queryOptions({ reviewUid: uid }),
    enabled: status === undefined ? !review.isError : status === "completed",
  });
  const seenActive = useRef(false);
  useEffect(() => {
    if (status && isActive(status)) seenActive.current = true;
    if (!status || isActive(status)) return;
    // The review finished (or was found finished): refresh lists that show it, and read the
    // findings again if they were read while it ran.
    void queryClient.invalidateQueries({ queryKey: trpc.reviews.list.pathKey() });
    if (seenActive.current) {
      seenActive.current = false;
      void queryClient.invalidateQueries({ queryKey: trpc.reviews.findings.queryKey({ reviewUid: uid }) });
    }
  }, [status, queryClient, trpc, uid]);
  return findings;
}
