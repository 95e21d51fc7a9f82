"use client";
import { useState, type FormEvent, type ReactNode } from "react";
import { errorInfo } from "@/app/_lib/trpc.ts";
import { Field, FormActions, FormError, Input, TextArea } from "./ui.tsx";

export interface PromptFormValues {
  name: string;
  content: string;
  isDefault: boolean;
}

/** The fields of a prompt; used by "New prompt" and by editing on the prompt page. */
export function PromptForm({
  initial,
  submitLabel,
  onSubmit,
  onCancel,
  busy,
  error,
  showDefault,
  contentEditor,
}: {
  initial: PromptFormValues;
  submitLabel: string;
  onSubmit: (v: PromptFormValues) => void;
  onCancel: () => void;
  busy: boolean;
  error: unknown;
  showDefault?: boolean;
  /** Edits the text instead of the plain text area (the prompt's shared draft, co-edited). */
  contentEditor?: ReactNode;
}) {
  const [values, setValues] = useState(initial);
  const err = error ? errorInfo(error) : null;
  function submit(e: FormEvent) {
    e.preventDefault();
    onSubmit(values);
  }
  return (
    <form
      onSubmit={submit}
      className="space-y-4"
      onKeyDown={(e) => e.key === "Enter" && (e.metaKey || e.ctrlKey) && onSubmit(values)}
    >
      <Field label="Name" htmlFor="prompt-name" error={err?.fields?.name?.[0]}>
        <Input
          id="prompt-name"
          autoFocus
          value={values.name}
          invalid={!!err?.fields?.name}
          onChange={(e) => setValues({ ...values, name: e.target.value })}
        />
      </Field>
      <Field
        label="Prompt"
        htmlFor="prompt-content"
        error={err?.fields?.content?.[0]}
        hint="The system prompt the review agent works from. Ctrl+Enter saves."
      >
        {contentEditor ?? (
          <TextArea
            id="prompt-content"
            rows={14}
            value={values.content}
            invalid={!!err?.fields?.content}
            onChange={(e) => setValues({ ...values, content: e.target.value })}
          />
        )}
      </Field>
      {showDefault && (
        <label className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            checked={values.isDefault}
            onChange={(e) => setValues({ ...values, isDefault: e.target.checked })}
            className="size-4 accent-brand-600"
          />
          Use as the default for new reviews
        </label>
      )}
      <FormError message={err && !err.fields ? err.message : null} />
      <FormActions onCancel={onCancel} submitLabel={submitLabel} busy={busy} />
    </form>
  );
}
