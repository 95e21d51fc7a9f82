"use client";
import { ProviderKindFields } from "./provider-kind-fields.tsx";
import { useProviderForm, type ProviderDraft } from "./use-provider-form.ts";
import { Button, Field, FormError, Input, Modal } from "./ui.tsx";

export type { ProviderDraft };

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
  const form = useProviderForm({ open, onClose, initial });
  const { catalog, draft, setDraft, apiKey, setApiKey, result, err, fieldError, provider } = form;

  return (
    <Modal open={open} onClose={onClose} title={draft.uid ? "Edit provider" : "Add a model provider"}>
      <form onSubmit={form.submit} className="space-y-4">
        <ProviderKindFields catalog={catalog} draft={draft} setDraft={setDraft} />
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
          <Button variant="secondary" busy={form.testing} onClick={form.testConnection}>
            Test connection
          </Button>
          <div className="flex gap-2">
            <Button variant="secondary" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" busy={form.saving}>
              Save
            </Button>
          </div>
        </div>
      </form>
    </Modal>
  );
}
