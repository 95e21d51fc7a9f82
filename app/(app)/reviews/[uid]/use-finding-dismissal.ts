"use client";
/** Marking a review's findings false positive (and restoring them): the row being marked, and the cached findings kept in step. */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { toast } from "sonner";
import type { ReviewFindingRow } from "@/app/_components/review/types.ts";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";

export function useFindingDismissal(uid: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [pendingFp, setPendingFp] = useState<string | null>(null);
  const findingsKey = trpc.reviews.findings.queryKey({ reviewUid: uid });
  const setDismissed = (f: ReviewFindingRow, dismissed: boolean) =>
    queryClient.setQueryData<ReviewFindingRow[]>(findingsKey, (rows) =>
      rows?.map((r) => (r.fingerprint === f.fingerprint ? { ...r, dismissed } : r)),
    );
  const dismiss = useMutation(trpc.reviews.dismiss.mutationOptions());
  const undismiss = useMutation(trpc.reviews.undismiss.mutationOptions());
  async function toggleDismiss(f: ReviewFindingRow, dismissed: boolean) {
    setPendingFp(f.fingerprint);
    try {
      await (dismissed ? dismiss : undismiss).mutateAsync({ reviewUid: uid, fingerprint: f.fingerprint });
      setDismissed(f, dismissed);
      toast.success(
        dismissed
          ? "Marked as false positive — later reviews of this project will not raise it again"
          : "Finding restored",
      );
    } catch (err) {
      toast.error(errorInfo(err).message);
    } finally {
      setPendingFp(null);
    }
  }
  return { pending: pendingFp, onDismiss: (f: ReviewFindingRow, d: boolean) => void toggleDismiss(f, d) };
}
