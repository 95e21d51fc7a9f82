"use client";
/** Create a knowledge base (no `base`) or rename / re-describe one. */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { toast } from "sonner";
import { NameDialog } from "@/app/_components/name-dialog.tsx";
import { Field, TextArea } from "@/app/_components/ui.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";

export function BaseDialog({
  open,
  onClose,
  base,
}: {
  open: boolean;
  onClose: () => void;
  base?: { uid: string; name: string; description: string | null };
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const { workspace } = useWorkspace();
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  useEffect(() => {
    if (open) {
      setName(base?.name ?? "");
      setDescription(base?.description ?? "");
    }
  }, [open, base?.name, base?.description]);

  const invalidate = () => queryClient.invalidateQueries({ queryKey: trpc.knowledge.pathKey() });
  const create = useMutation(
    trpc.knowledge.create.mutationOptions({
      onSuccess: async (created) => {
        await invalidate();
        toast.success("Knowledge base created");
        onClose();
        router.push(`/knowledge/${created.uid}`);
      },
    }),
  );
  const update = useMutation(
    trpc.knowledge.update.mutationOptions({
      onSuccess: async () => {
        await invalidate();
        toast.success("Knowledge base saved");
        onClose();
      },
    }),
  );
  const mutation = base ? update : create;
  const err = mutation.error ? errorInfo(mutation.error) : null;

  return (
    <NameDialog
      open={open}
      onClose={onClose}
      title={base ? "Edit knowledge base" : "New knowledge base"}
      submitLabel={base ? "Save" : "Create knowledge base"}
      busy={mutation.isPending}
      error={err}
      onSubmit={() =>
        base
          ? update.mutate({ uid: base.uid, name, description: description || null })
          : create.mutate({ workspaceId: workspace.id, name, description: description || undefined })
      }
      name={{ id: "kb-name", value: name, onChange: setName, placeholder: "e.g. Engineering handbook" }}
    >
      <Field
        label="Description"
        htmlFor="kb-description"
        error={err?.fields?.description?.[0]}
        hint="Optional: what is in it, who it is for."
      >
        <TextArea
          id="kb-description"
          rows={3}
          className="font-sans"
          value={description}
          onChange={(e) => setDescription(e.target.value)}
        />
      </Field>
    </NameDialog>
  );
}
