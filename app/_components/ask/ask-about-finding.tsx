"use client";
/**
 * "Ask about this finding": starts a conversation about one finding of a review — the thread begins
 * with the finding and its evidence — in the review's room, where the review page's conversations
 * panel opens it.
 */
import { useMutation } from "@tanstack/react-query";
import { MessageCircleQuestion } from "lucide-react";
import { toast } from "sonner";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { Button } from "../ui.tsx";

export const FINDING_QUESTION = "Explain this finding: is it real, and what would fix it?";

export function AskAboutFinding({ reviewUid, fingerprint }: { reviewUid: string; fingerprint: string }) {
  const trpc = useTRPC();
  const ask = useMutation(trpc.ask.ask.mutationOptions({ onError: (err) => toast.error(errorInfo(err).message) }));
  return (
    <Button
      variant="secondary"
      busy={ask.isPending}
      onClick={() => ask.mutate({ reviewUid, fingerprint, question: FINDING_QUESTION })}
    >
      <MessageCircleQuestion className="size-3.5" aria-hidden /> Ask about this finding
    </Button>
  );
}
