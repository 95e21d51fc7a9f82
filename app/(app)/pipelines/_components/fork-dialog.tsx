"use client";
/** Fork a gallery pipeline into the workspace under a name of its own, then open it. */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Field, FormActions, FormError, Input, Modal } from "@/app/_components/ui.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { pipelineNameSchema } from "@/server/shared/pipelines.ts";
import { pipelineHref } from "./types.ts";

export function ForkDialog({ open, onClose, galleryKey }: { open: boolean; onClose: () => void; galleryKey: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const { workspace } = useWorkspace();
  const [name, setName] = useState(galleryKey);
  const [error, setError] = useState<string | null>(null);
  const fork = useMutation(
    trpc.pipelines.fork.mutationOptions({
      onSuccess: async (r) => {
        await queryClient.invalidateQueries({ queryKey: trpc.pipelines.list.pathKey() });
        router.push(pipelineHref(r.uid));
      },
      onError: (err) => setError(errorInfo(err).message),
    }),
  );
  function submit(e: FormEvent) {
    e.preventDefault();
    const parsed = pipelineNameSchema.safeParse(name);
    if (!parsed.success) return setError(parsed.error.issues[0]?.message ?? "Check the name.");
    fork.mutate({ workspaceId: workspace.id, key: galleryKey, name: parsed.data });
  }
  return (
    <Modal open={open} onClose={onClose} title="Fork pipeline">
      <form onSubmit={submit} className="space-y-4">
        <p className="text-sm text-zinc-600 dark:text-zinc-300">
          A copy of the gallery&apos;s {galleryKey} in this workspace, with its parameters, that you can edit, save and
          run.
        </p>
        <Field label="Name" htmlFor="fork-name" hint="Letters, digits, _ and -: it names the pipeline's files.">
          <Input id="fork-name" value={name} onChange={(e) => setName(e.target.value)} autoFocus />
        </Field>
        <FormError message={error} />
        <FormActions onCancel={onClose} submitLabel="Fork" busy={fork.isPending} />
      </form>
    </Modal>
  );
}
