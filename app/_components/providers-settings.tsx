"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Plus } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { MODEL_PROVIDERS_ID } from "./model-connections.tsx";
import { ProviderDialog, type ProviderDraft } from "./provider-dialog.tsx";
import { ProviderRow } from "./provider-row.tsx";
import { Button, Card, DelayedSkeleton } from "./ui.tsx";

const blank: ProviderDraft = { name: "", provider: "anthropic", baseUrl: "", model: "" };

/** Settings → Model providers: the environment's default plus the workspace's own connections. */
export function ProvidersSettings() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { workspace } = useWorkspace();
  const isOwner = workspace.role === "owner";
  const list = useQuery(trpc.providers.list.queryOptions({ workspaceId: workspace.id }));
  const ollama = useQuery({
    ...trpc.providers.detectOllama.queryOptions({ workspaceId: workspace.id }),
    staleTime: 60_000,
  });
  const [editing, setEditing] = useState<ProviderDraft | null>(null);
  const [results, setResults] = useState<Record<string, { ok: boolean; text: string }>>({});
  const test = useMutation(trpc.providers.test.mutationOptions());
  const remove = useMutation(
    trpc.providers.delete.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.providers.list.queryKey({ workspaceId: workspace.id }) });
        toast.success("Provider removed");
      },
      onError: (err) => toast.error(errorInfo(err).message),
    }),
  );

  const setDefault = useMutation(
    trpc.providers.setDefault.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.providers.pathKey() });
        toast.success("Default model connection saved");
      },
      onError: (err) => toast.error(errorInfo(err).message),
    }),
  );

  async function runTest(key: string, input: Parameters<typeof test.mutateAsync>[0]) {
    setResults((r) => ({ ...r, [key]: { ok: true, text: "Testing…" } }));
    try {
      const r = await test.mutateAsync(input);
      setResults((all) => ({
        ...all,
        [key]: r.ok ? { ok: true, text: `OK — ${r.model} replied in ${r.latencyMs} ms` } : { ok: false, text: r.error },
      }));
    } catch (err) {
      setResults((all) => ({ ...all, [key]: { ok: false, text: errorInfo(err).message } }));
    }
  }

  return (
    <section id={MODEL_PROVIDERS_ID} className="scroll-mt-4">
      <Card className="p-5">
        <div className="flex items-start justify-between gap-4">
          <div>
            <h2 className="font-medium">Model providers</h2>
            <p className="mt-1 text-sm text-zinc-500">
              Where reviews, chat and pipelines send their model calls. The workspace default (listed first) is
              preselected everywhere; members can pick another when they start a review or ask. Keys are stored
              encrypted and never shown again.
            </p>
          </div>
          {isOwner && (
            <Button variant="secondary" onClick={() => setEditing(blank)}>
              <Plus className="size-4" aria-hidden /> Add provider
            </Button>
          )}
        </div>
        {ollama.data?.reachable && isOwner && (
          <div className="mt-4 flex flex-wrap items-center justify-between gap-2 rounded-md bg-brand-50 p-3 text-sm dark:bg-brand-700/20">
            <span>
              Ollama is running at {ollama.data.baseUrl} with {ollama.data.models.length} model
              {ollama.data.models.length === 1 ? "" : "s"}
              {ollama.data.models.length > 0 &&
                `: ${ollama.data.models.slice(0, 3).join(", ")}${ollama.data.models.length > 3 ? "…" : ""}`}
              .
            </span>
            <Button
              variant="secondary"
              onClick={() =>
                setEditing({
                  name: "Ollama",
                  provider: "openai-compatible",
                  baseUrl: ollama.data!.baseUrl,
                  model: ollama.data!.models[0] ?? "",
                })
              }
            >
              Use Ollama
            </Button>
          </div>
        )}
        {list.isPending && <DelayedSkeleton rows={2} />}
        <ul className="mt-4 divide-y divide-zinc-200 text-sm dark:divide-zinc-800" aria-label="Model providers">
          {list.data?.map((c) => {
            const key = c.uid ?? "environment";
            return (
              <ProviderRow
                key={key}
                connection={c}
                isOwner={isOwner}
                result={results[key]}
                onTest={() => runTest(key, c.uid ? { uid: c.uid } : { environment: true, workspaceId: workspace.id })}
                onMakeDefault={(uid) => setDefault.mutate({ workspaceId: workspace.id, uid })}
                makingDefault={setDefault.isPending && setDefault.variables?.uid === c.uid}
                onEdit={setEditing}
                onRemove={(uid) => remove.mutate({ uid })}
              />
            );
          })}
        </ul>
        <ProviderDialog open={!!editing} onClose={() => setEditing(null)} initial={editing ?? blank} />
      </Card>
    </section>
  );
}
