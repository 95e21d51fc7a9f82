"use client";
/** The provider dialog's state: the draft and key being edited, "Test connection" and its result, saving. */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { toast } from "sonner";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";

export type ProviderId = "anthropic" | "openai" | "openai-compatible";

export interface ProviderDraft {
  uid?: string;
  name: string;
  provider: ProviderId;
  baseUrl: string;
  model: string;
  hasKey?: boolean;
  apiKeyHint?: string | null;
}

/** Starts over from `initial` whenever the dialog opens; a save closes it. */
export function useProviderForm({
  open,
  onClose,
  initial,
}: {
  open: boolean;
  onClose: () => void;
  initial: ProviderDraft;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { workspace } = useWorkspace();
  const catalog = useQuery(trpc.providers.catalog.queryOptions());
  const [draft, setDraft] = useState(initial);
  const [apiKey, setApiKey] = useState("");
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  useEffect(() => {
    if (open) {
      setDraft(initial);
      setApiKey("");
      setResult(null);
    }
  }, [open, initial]);

  const save = useMutation(
    trpc.providers.save.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.providers.list.queryKey({ workspaceId: workspace.id }) });
        toast.success("Provider saved");
        onClose();
      },
    }),
  );
  const test = useMutation(
    trpc.providers.test.mutationOptions({
      onSuccess: (r) =>
        setResult(
          r.ok
            ? { ok: true, text: `Connected to ${r.model} in ${r.latencyMs} ms — it replied “${r.reply}”.` }
            : { ok: false, text: r.error },
        ),
      onError: (err) => setResult({ ok: false, text: errorInfo(err).message }),
    }),
  );
  const err = save.error ? errorInfo(save.error) : null;
  const fieldError = (name: string) => err?.fields?.[name]?.[0];
  const provider = catalog.data?.providers.find((p) => p.id === draft.provider);
  const fields = {
    workspaceId: workspace.id,
    name: draft.name,
    provider: draft.provider,
    baseUrl: draft.baseUrl,
    model: draft.model || undefined,
  };

  function submit(e: FormEvent) {
    e.preventDefault();
    save.mutate({ ...fields, uid: draft.uid ?? crypto.randomUUID(), apiKey: apiKey || undefined });
  }
  const testConnection = () => test.mutate({ ...fields, uid: draft.uid, apiKey: apiKey || undefined });

  return {
    catalog: catalog.data,
    draft,
    setDraft,
    apiKey,
    setApiKey,
    result,
    err,
    fieldError,
    provider,
    submit,
    saving: save.isPending,
    testConnection,
    testing: test.isPending,
  };
}
