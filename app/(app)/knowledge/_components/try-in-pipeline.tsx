"use client";
/** "Try in a pipeline": forks the gallery's knowledge-base RAG pipeline preset to read this base, then opens it. */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Workflow } from "lucide-react";
import { useRouter } from "next/navigation";
import { toast } from "sonner";
import { Button } from "@/app/_components/ui.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";

/** The gallery pipeline it forks (server/pipelines/workspace/kb-preset.ts). */
const KB_PIPELINE = "kb_rag";

export function TryInPipeline({
  workspaceId,
  baseUid,
  disabled,
}: {
  workspaceId: string;
  baseUid: string;
  disabled?: boolean;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const fork = useMutation(
    trpc.pipelines.fork.mutationOptions({
      onSuccess: async (r) => {
        toast.success("Forked “RAG over a knowledge base”, reading this knowledge base");
        await queryClient.invalidateQueries({ queryKey: trpc.pipelines.pathKey() });
        router.push(`/pipelines/${r.uid}`);
      },
      onError: (err) => toast.error(errorInfo(err).message),
    }),
  );
  return (
    <Button
      variant="secondary"
      busy={fork.isPending}
      disabled={disabled}
      title={disabled ? "Upload a document first: the pipeline retrieves from the indexed documents." : undefined}
      onClick={() => fork.mutate({ workspaceId, key: KB_PIPELINE, knowledgeBaseUid: baseUid })}
    >
      <Workflow className="size-4" aria-hidden /> Try in a pipeline
    </Button>
  );
}
