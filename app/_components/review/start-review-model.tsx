"use client";
/**
 * The start-review form's model section (the review agent only): prompt, model connection (a link to
 * add a provider when none is usable), model id with the provider's catalog as suggestions, budget.
 */
import Link from "next/link";
import { Field, FormError, Input, Select } from "../ui.tsx";
import { connectionOptionLabel, ENVIRONMENT, MODEL_PROVIDERS_HREF } from "../model-connections.tsx";
import { Section } from "./start-review-fields.tsx";
import type { StartReviewForm } from "./use-start-review-form.ts";

type Props = Pick<StartReviewForm, "draft" | "set" | "setDraft" | "fieldError" | "connection" | "models" | "lists">;

export function ModelSection({ draft, set, setDraft, fieldError, connection, models, lists }: Props) {
  const { prompts, connections } = lists;
  return (
    <Section title="Model">
      <Field label="Prompt" htmlFor="review-prompt" error={fieldError("promptUid")}>
        <Select id="review-prompt" value={draft.promptUid} onChange={(e) => set("promptUid", e.target.value)}>
          {prompts.data?.map((p) => (
            <option key={p.uid} value={p.uid}>
              {p.name}
              {p.isDefault ? " (default)" : ""}
            </option>
          ))}
        </Select>
      </Field>
      <Field label="Model connection" htmlFor="review-connection" error={fieldError("connectionUid")}>
        <Select
          id="review-connection"
          value={draft.connectionUid}
          onChange={(e) => setDraft((d) => ({ ...d, connectionUid: e.target.value, model: "" }))}
        >
          {!draft.connectionUid && (
            <option value="" disabled>
              {connections.data?.some((c) => c.usable) ? "Choose a connection…" : "No model connection yet"}
            </option>
          )}
          {connections.data?.map((c) => (
            <option key={c.uid ?? ENVIRONMENT} value={c.uid ?? ENVIRONMENT} disabled={!c.usable}>
              {connectionOptionLabel(c)}
            </option>
          ))}
        </Select>
        {connections.data && !connections.data.some((c) => c.usable) && (
          <p className="mt-1 text-xs text-zinc-500">
            <Link href={MODEL_PROVIDERS_HREF} className="text-brand-600 underline">
              Add a model provider
            </Link>{" "}
            (an owner does it once for the workspace), or run the static engine.
          </p>
        )}
      </Field>
      <Field
        label="Model"
        htmlFor="review-model"
        error={fieldError("model")}
        hint={connection?.model ? `Leave empty for ${connection.model}.` : undefined}
      >
        <Input
          id="review-model"
          list="review-models"
          value={draft.model}
          onChange={(e) => set("model", e.target.value)}
          placeholder={connection?.model ?? "model id"}
        />
        <datalist id="review-models">
          {models.map((m) => (
            <option key={m.id} value={m.id}>
              {m.label}
            </option>
          ))}
        </datalist>
      </Field>
      <BudgetFields draft={draft} set={set} />
      <FormError message={fieldError("budget")} />
    </Section>
  );
}

function BudgetFields({ draft, set }: Pick<Props, "draft" | "set">) {
  return (
    <div className="grid grid-cols-2 gap-3">
      <Field label="Max iterations" htmlFor="review-iterations">
        <Input
          id="review-iterations"
          type="number"
          min={1}
          max={500}
          value={draft.maxIterations}
          onChange={(e) => set("maxIterations", e.target.value)}
        />
      </Field>
      <Field label="Max cost (USD)" htmlFor="review-cost" hint="Empty: no cost cap.">
        <Input
          id="review-cost"
          type="number"
          min={0}
          step="0.5"
          value={draft.maxCostUsd}
          onChange={(e) => set("maxCostUsd", e.target.value)}
          placeholder="e.g. 2"
        />
      </Field>
    </div>
  );
}
