"use client";
/**
 * The dialog that creates or renames a thing (a project, a knowledge base): its Name field, any further
 * fields as children, Cancel and the submit button. The server's error shows under the name unless it
 * belongs to another field (which then shows it itself).
 */
import type { FormEvent, ReactNode } from "react";
import type { errorInfo } from "@/app/_lib/trpc.ts";
import { Field, FormActions, Input, Modal } from "./ui.tsx";

export function NameDialog({
  open,
  onClose,
  title,
  submitLabel,
  busy,
  error,
  onSubmit,
  name,
  children,
}: {
  open: boolean;
  onClose: () => void;
  title: string;
  submitLabel: string;
  busy: boolean;
  error: ReturnType<typeof errorInfo> | null;
  onSubmit: () => void;
  name: { id: string; value: string; onChange: (name: string) => void; placeholder: string };
  children?: ReactNode;
}) {
  function submit(e: FormEvent) {
    e.preventDefault();
    onSubmit();
  }

  return (
    <Modal open={open} onClose={onClose} title={title}>
      <form onSubmit={submit} className="space-y-4">
        <Field
          label="Name"
          htmlFor={name.id}
          error={error?.fields?.name?.[0] ?? (error && !error.fields ? error.message : undefined)}
        >
          <Input
            id={name.id}
            autoFocus
            value={name.value}
            onChange={(e) => name.onChange(e.target.value)}
            placeholder={name.placeholder}
            invalid={!!error}
          />
        </Field>
        {children}
        <FormActions onCancel={onClose} submitLabel={submitLabel} busy={busy} />
      </form>
    </Modal>
  );
}
