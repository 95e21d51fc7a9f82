"use client";
/** The provider dialog's first fields: which provider, and for an OpenAI-compatible one a preset that fills in its base URL. */
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/router.ts";
import type { ProviderDraft, ProviderId } from "./use-provider-form.ts";
import { Field, Select } from "./ui.tsx";

type ProviderCatalog = inferRouterOutputs<AppRouter>["providers"]["catalog"];

export function ProviderKindFields({
  catalog,
  draft,
  setDraft,
}: {
  catalog: ProviderCatalog | undefined;
  draft: ProviderDraft;
  setDraft: (next: ProviderDraft) => void;
}) {
  return (
    <>
      <Field label="Provider" htmlFor="provider-kind">
        <Select
          id="provider-kind"
          value={draft.provider}
          onChange={(e) => setDraft({ ...draft, provider: e.target.value as ProviderId, model: "" })}
        >
          {catalog?.providers.map((p) => (
            <option key={p.id} value={p.id}>
              {p.label}
            </option>
          ))}
        </Select>
      </Field>
      {draft.provider === "openai-compatible" && (
        <Field label="Preset" htmlFor="provider-preset" hint="Fills in the usual base URL of a local or hosted server.">
          <Select
            id="provider-preset"
            value=""
            onChange={(e) => {
              const preset = catalog?.compatiblePresets.find((p) => p.id === e.target.value);
              if (preset) setDraft({ ...draft, baseUrl: preset.baseURL, name: draft.name || preset.label });
            }}
          >
            <option value="">Choose a preset…</option>
            {catalog?.compatiblePresets.map((p) => (
              <option key={p.id} value={p.id}>
                {p.label}
              </option>
            ))}
          </Select>
        </Field>
      )}
    </>
  );
}
