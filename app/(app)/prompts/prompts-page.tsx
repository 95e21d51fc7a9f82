"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { MessageSquareText, Plus } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { toast } from "sonner";
import { PromptForm } from "@/app/_components/prompt-form.tsx";
import { Badge, Button, EmptyState, Modal, PageHeader } from "@/app/_components/ui.tsx";
import { QueryList } from "@/app/_components/query-states.tsx";
import { useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";

export default function PromptsPage() {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const { workspace, canEdit } = useWorkspace();
  const prompts = useQuery(trpc.prompts.list.queryOptions({ workspaceId: workspace.id }));
  const [creating, setCreating] = useState(false);
  const create = useMutation(
    trpc.prompts.create.mutationOptions({
      onSuccess: async (p) => {
        await queryClient.invalidateQueries({ queryKey: trpc.prompts.pathKey() });
        toast.success("Prompt created");
        setCreating(false);
        router.push(`/prompts/${p.uid}`);
      },
    }),
  );

  const newButton = canEdit && (
    <Button onClick={() => setCreating(true)}>
      <Plus className="size-4" aria-hidden /> New prompt
    </Button>
  );

  return (
    <>
      <PageHeader
        title="Prompts"
        description="System prompts for reviews. The default is preselected when a review starts."
        actions={newButton}
      />
      <QueryList
        query={prompts}
        label="Prompts"
        empty={
          <EmptyState icon={<MessageSquareText className="size-8" />} title="No prompts" action={newButton}>
            Write the instructions the review agent should follow.
          </EmptyState>
        }
      >
        {(p) => (
          <li key={p.uid} className="flex items-center gap-3 px-4 py-3">
            <Link href={`/prompts/${p.uid}`} className="min-w-0 flex-1 truncate font-medium hover:underline">
              {p.name}
            </Link>
            {p.isDefault && <Badge tone="brand">Default</Badge>}
            {p.isBuiltin && <Badge>Built-in</Badge>}
            <span className="text-xs text-zinc-500">v{p.version}</span>
          </li>
        )}
      </QueryList>
      <Modal open={creating} onClose={() => setCreating(false)} title="New prompt">
        <PromptForm
          initial={{ name: "", content: "", isDefault: false }}
          submitLabel="Create prompt"
          showDefault
          busy={create.isPending}
          error={create.error}
          onCancel={() => setCreating(false)}
          onSubmit={(v) => create.mutate({ workspaceId: workspace.id, uid: crypto.randomUUID(), ...v })}
        />
      </Modal>
    </>
  );
}
