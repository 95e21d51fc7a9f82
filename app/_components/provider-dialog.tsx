"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { toast } from "sonner";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { Button, Field, FormError, Input, Modal, Select } from "./ui.tsx";

type ProviderId = "anthropic" | "openai" | "openai-compatible";

export interface ProviderDraft {
  uid?: string;
  name: string;
  provider: ProviderId;
  baseUrl: string;
  model: string;
  hasKey?: boolean;
  apiKeyHint?: string | null;
}

/** Add or edit a provider connection; "Test connection" tries the form's values before saving. */
export function ProviderDialog({
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

  return (
    <Modal open={open} onClose={onClose} title={draft.uid ? "Edit provider" : "Add a model provider"}>
      <form onSubmit={submit} className="space-y-4">
        <Field label="Provider" htmlFor="provider-kind">
          <Select
            id="provider-kind"
            value={draft.provider}
            onChange={(e) => setDraft({ ...draft, provider: e.target.value as ProviderId, model: "" })}
          >
            {catalog.data?.providers.map((p) => (
              <option key={p.id} value={p.id}>
                {p.label}
              </option>
            ))}
          </Select>
        </Field>
        {draft.provider === "openai-compatible" && (
          <Field
            label="Preset"
            htmlFor="provider-preset"
            hint="Fills in the usual base URL of a local or hosted server."
          >
            <Select
              id="provider-preset"
              value=""
              onChange={(e) => {
                const preset = catalog.data?.compatiblePresets.find((p) => p.id === e.target.value);
                if (preset) setDraft({ ...draft, baseUrl: preset.baseURL, name: draft.name || preset.label });
              }}
            >
              <option value="">Choose a preset…</option>
              {catalog.data?.compatiblePresets.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.label}
                </option>
              ))}
            </Select>
          </Field>
        )}
        <Field label="Name" htmlFor="provider-name" error={fieldError("name")}>
          <Input
            id="provider-name"
            value={draft.name}
            invalid={!!fieldError("name")}
            onChange={(e) => setDraft({ ...draft, name: e.target.value })}
            placeholder="e.g. Team Anthropic"
          />
        </Field>
        <Field
          label="Base URL"
          htmlFor="provider-url"
          error={fieldError("baseUrl")}
          hint={
            provider?.defaultBaseURL ? `Default: ${provider.defaultBaseURL}. Set it for a gateway or proxy.` : undefined
          }
        >
          <Input
            id="provider-url"
            value={draft.baseUrl}
            invalid={!!fieldError("baseUrl")}
            onChange={(e) => setDraft({ ...draft, baseUrl: e.target.value })}
            placeholder={provider?.defaultBaseURL ?? "http://localhost:11434/v1"}
          />
        </Field>
        <Field
          label="Model"
          htmlFor="provider-model"
          error={fieldError("model")}
          hint={provider?.defaultModel ? `Default: ${provider.defaultModel}` : undefined}
        >
          <Input
            id="provider-model"
            list="provider-models"
            value={draft.model}
            invalid={!!fieldError("model")}
            onChange={(e) => setDraft({ ...draft, model: e.target.value })}
          />
          <datalist id="provider-models">
            {provider?.models.map((m) => (
              <option key={m.id} value={m.id}>
                {m.label}
              </option>
            ))}
          </datalist>
        </Field>
        <Field
          label="API key"
          htmlFor="provider-key"
          hint={
            draft.hasKey
              ? `A key ending in ${draft.apiKeyHint ?? "…"} is stored. Leave empty to keep it.`
              : "Stored encrypted; never shown again."
          }
        >
          <Input
            id="provider-key"
            type="password"
            autoComplete="off"
            value={apiKey}
            onChange={(e) => setApiKey(e.target.value)}
          />
        </Field>
        {result && (
          <p
            role="status"
            className={
              result.ok
                ? "text-sm text-green-700 dark:text-green-400"
                : "whitespace-pre-wrap break-words text-sm text-red-600 dark:text-red-400"
            }
          >
            {result.text}
          </p>
        )}
        <FormError message={err && !err.fields ? err.message : null} />
        <div className="flex justify-between gap-2">
          <Button
            variant="secondary"
            busy={test.isPending}
            onClick={() => test.mutate({ ...fields, uid: draft.uid, apiKey: apiKey || undefined })}
          >
            Test connection
          </Button>
          <div className="flex gap-2">
            <Button variant="secondary" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" busy={save.isPending}>
              Save
            </Button>
          </div>
        </div>
      </form>
    </Modal>
  );
}
