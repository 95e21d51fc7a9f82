"use client";
/** What a run's page and the run history share: a run's data set in words, and re-running a run. */
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { toast } from "sonner";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { runHref, type RunItem } from "./types.ts";

export function datasetLabel(d: RunItem["dataset"]): string {
  if (!d || d.kind === "sample") return "sample";
  if (d.kind === "chat") return `question: ${d.question}`;
  return "items" in d ? `${d.name} (${d.items} rows)` : d.name;
}

/** Re-runs a run as it ran and opens the new run's page. */
export function useRerun() {
  const trpc = useTRPC();
  const router = useRouter();
  return useMutation(
    trpc.pipelines.rerun.mutationOptions({
      onSuccess: (r) => router.push(runHref(r.uid)),
      onError: (err) => toast.error(errorInfo(err).message),
    }),
  );
}
