"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Copy, Pencil, Star, Trash2 } from "lucide-react";
import { useParams, useRouter } from "next/navigation";
import { useCallback, useState } from "react";
import { toast } from "sonner";
import { SharedPromptEditor } from "@/app/_components/coedit/shared-prompt-editor.tsx";
import { PromptForm } from "@/app/_components/prompt-form.tsx";
import { BackLink, Badge, Button, Card, ConfirmDialog, PageHeader } from "@/app/_components/ui.tsx";
import { DetailNotLoaded } from "@/app/_components/query-states.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { formatDate } from "@/app/_components/review/format.ts";
import { useHydrated } from "@/app/_lib/use-hydrated.ts";

export default function PromptPage() {
  const { uid } = useParams<{ uid: string }>();
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const { canEdit, user } = useWorkspace();
  // The prompt's text is a shared draft while editing: its save saves the merged text.
  const [saveDraft, setSaveDraft] = useState<(() => Promise<{ ok: boolean; message?: string }>) | null>(null);
  const onDraftReady = useCallback((save: typeof saveDraft) => setSaveDraft(() => save), []);
  const prompt = useQuery(trpc.prompts.get.queryOptions({ uid }));
  // Dates in the server's form until hydrated (app/_lib/use-hydrated.ts).
  const local = useHydrated();
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);

  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.prompts.pathKey() });
  const onError = (err: unknown) => toast.error(errorInfo(err).message);
  const update = useMutation(
    trpc.prompts.update.mutationOptions({
      onSuccess: async () => {
        await refresh();
        setEditing(false);
        toast.success("Prompt saved");
      },
    }),
  );
  const setDefault = useMutation(
    trpc.prompts.setDefault.mutationOptions({
      onSuccess: async (p) => {
        await refresh();
        toast.success(p.isDefault ? "This is now the default prompt" : "No longer the default");
      },
      onError,
    }),
  );
  const duplicate = useMutation(
    trpc.prompts.duplicate.mutationOptions({
      onSuccess: async (p) => {
        await refresh();
        toast.success("Copy created — you can edit it");
        router.push(`/prompts/${p.uid}`);
      },
      onError,
    }),
  );
  const remove = useMutation(
    trpc.prompts.delete.mutationOptions({
      onSuccess: async () => {
        await refresh();
        toast.success("Prompt deleted");
        router.push("/prompts");
      },
      onError: (err) => {
        setDeleting(false);
        onError(err);
      },
    }),
  );

  const back = <BackLink href="/prompts">Prompts</BackLink>;
  if (prompt.isError || !prompt.data) return <DetailNotLoaded query={prompt} back={back} retry={false} />;
  const p = prompt.data;

  const actions = canEdit && (
    <>
      <Button
        variant="secondary"
        onClick={() => setDefault.mutate({ uid, isDefault: !p.isDefault })}
        busy={setDefault.isPending}
      >
        <Star className="size-4" aria-hidden /> {p.isDefault ? "Unset default" : "Set as default"}
      </Button>
      <Button
        variant="secondary"
        onClick={() => duplicate.mutate({ uid, newUid: crypto.randomUUID() })}
        busy={duplicate.isPending}
      >
        <Copy className="size-4" aria-hidden /> Duplicate
      </Button>
      {!p.isBuiltin && (
        <Button variant="secondary" onClick={() => setEditing(true)} disabled={editing}>
          <Pencil className="size-4" aria-hidden /> Edit
        </Button>
      )}
      {!p.isBuiltin && (
        <Button variant="danger" onClick={() => setDeleting(true)}>
          <Trash2 className="size-4" aria-hidden /> Delete
        </Button>
      )}
    </>
  );

  return (
    <>
      {back}
      <PageHeader
        title={p.name}
        description={`Version ${p.version} · updated ${formatDate(p.updatedAt, local)}`}
        actions={actions}
      />
      <div className="mb-4 flex gap-2">
        {p.isDefault && <Badge tone="brand">Default</Badge>}
        {p.isBuiltin && <Badge>Built-in · read-only — duplicate to edit</Badge>}
      </div>
      {editing ? (
        <Card className="p-5">
          <PromptForm
            initial={{ name: p.name, content: p.content, isDefault: p.isDefault }}
            submitLabel="Save"
            busy={update.isPending}
            error={update.error}
            onCancel={() => setEditing(false)}
            contentEditor={<SharedPromptEditor uid={uid} user={user} readOnly={!canEdit} onReady={onDraftReady} />}
            onSubmit={async (v) => {
              const saved = saveDraft ? await saveDraft() : { ok: true };
              if (!saved.ok) return void toast.error(saved.message ?? "The draft could not be saved.");
              update.mutate({ uid, name: v.name });
            }}
          />
        </Card>
      ) : (
        <Card className="p-5">
          <pre
            className="whitespace-pre-wrap break-words font-mono text-sm leading-relaxed"
            data-testid="prompt-content"
          >
            {p.content}
          </pre>
        </Card>
      )}
      <ConfirmDialog
        open={deleting}
        onClose={() => setDeleting(false)}
        onConfirm={() => remove.mutate({ uid })}
        busy={remove.isPending}
        title="Delete prompt?"
        body={<>“{p.name}” will be deleted. Reviews that used it keep their own copy.</>}
        confirmLabel="Delete prompt"
      />
    </>
  );
}
