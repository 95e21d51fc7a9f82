"use client";
/** Saving a workspace pipeline's version and deleting the pipeline, with what each tells the user. */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { toast } from "sonner";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";

export function usePipelineMutations() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const save = useMutation(
    trpc.pipelines.save.mutationOptions({
      onSuccess: async (r) => {
        if (r.valid) toast.success(`Saved version ${r.version}`);
        else
          toast.warning(
            `Saved version ${r.version} as a draft: ${r.errors} ${r.errors === 1 ? "error" : "errors"} to fix before it can run`,
          );
        await queryClient.invalidateQueries({ queryKey: trpc.pipelines.pathKey() });
      },
      onError: (err) => toast.error(errorInfo(err).message),
    }),
  );
  const remove = useMutation(
    trpc.pipelines.delete.mutationOptions({
      onSuccess: async () => {
        toast.success("Pipeline deleted");
        router.push("/pipelines");
        await queryClient.invalidateQueries({ queryKey: trpc.pipelines.pathKey() });
      },
      onError: (err) => toast.error(errorInfo(err).message),
    }),
  );
  return { save, remove };
}
