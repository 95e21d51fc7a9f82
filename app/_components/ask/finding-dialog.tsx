"use client";
/**
 * "Answer → finding": a finding prefilled from the answer (or the selected part of it) — file and
 * lines from its first citation that exists, severity and category from what is already known about
 * those lines — editable, then saved on a review of the project or on its team findings list.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useId, useState } from "react";
import { toast } from "sonner";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { CATEGORIES, SEVERITIES, type Category, type Severity } from "@/server/shared/findings.ts";
import { Field, FormActions, FormError, Input, Modal, Select, TextArea } from "../ui.tsx";

interface Form {
  target: string; // "team" or a review uid
  title: string;
  file: string;
  startLine: string;
  endLine: string;
  severity: Severity;
  category: Category;
  explanation: string;
}

export function FindingDialog({
  answerUid,
  selection,
  onClose,
}: {
  answerUid: string;
  selection?: string;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const id = useId();
  const draft = useQuery(trpc.ask.findingDraft.queryOptions({ answerUid, selection: selection || undefined }));
  const [form, setForm] = useState<Form | null>(null);
  useEffect(() => {
    const d = draft.data;
    if (!d || form) return;
    setForm({
      target: d.defaultTarget.target === "review" ? d.defaultTarget.reviewUid : (d.reviews[0]?.uid ?? "team"),
      title: d.draft?.title ?? "",
      file: d.draft?.file ?? "",
      startLine: String(d.draft?.startLine ?? 1),
      endLine: String(d.draft?.endLine ?? 1),
      severity: d.draft?.severity ?? "medium",
      category: d.draft?.category ?? "correctness",
      explanation: d.draft?.explanation ?? "",
    });
  }, [draft.data, form]);
  const save = useMutation(
    trpc.ask.saveFinding.mutationOptions({
      onSuccess: async (r) => {
        toast.success(r.target === "review" ? "Finding saved on the review" : "Finding saved to the team's findings");
        await queryClient.invalidateQueries({ queryKey: trpc.reviews.findings.pathKey() });
        await queryClient.invalidateQueries({ queryKey: trpc.ask.teamFindings.pathKey() });
        onClose();
      },
    }),
  );
  const set = (patch: Partial<Form>) => setForm((f) => (f ? { ...f, ...patch } : f));
  function submit(e: FormEvent) {
    e.preventDefault();
    if (!form) return;
    save.mutate({
      answerUid,
      target: form.target === "team" ? "team" : "review",
      reviewUid: form.target === "team" ? undefined : form.target,
      title: form.title,
      file: form.file,
      startLine: Number(form.startLine),
      endLine: Number(form.endLine),
      severity: form.severity,
      category: form.category,
      explanation: form.explanation,
    });
  }
  const error = save.error ? errorInfo(save.error) : null;
  return (
    <Modal open onClose={onClose} title="Answer → finding">
      {!form ? (
        <p className="text-sm text-zinc-500">{draft.isError ? errorInfo(draft.error).message : "Drafting…"}</p>
      ) : (
        <form onSubmit={submit} className="space-y-3">
          <Field label="Save on" htmlFor={`${id}-target`}>
            <Select id={`${id}-target`} value={form.target} onChange={(e) => set({ target: e.target.value })}>
              {draft.data!.reviews.map((r) => (
                <option key={r.uid} value={r.uid}>
                  {r.label}
                </option>
              ))}
              <option value="team">The project&apos;s team findings</option>
            </Select>
          </Field>
          <Field label="Title" htmlFor={`${id}-title`} error={error?.fields?.title?.[0]}>
            <Input id={`${id}-title`} value={form.title} onChange={(e) => set({ title: e.target.value })} />
          </Field>
          <div className="grid grid-cols-[1fr_5rem_5rem] gap-2">
            <Field label="File" htmlFor={`${id}-file`}>
              <Input id={`${id}-file`} value={form.file} onChange={(e) => set({ file: e.target.value })} />
            </Field>
            <Field label="From line" htmlFor={`${id}-start`}>
              <Input
                id={`${id}-start`}
                inputMode="numeric"
                value={form.startLine}
                onChange={(e) => set({ startLine: e.target.value })}
              />
            </Field>
            <Field label="To line" htmlFor={`${id}-end`}>
              <Input
                id={`${id}-end`}
                inputMode="numeric"
                value={form.endLine}
                onChange={(e) => set({ endLine: e.target.value })}
              />
            </Field>
          </div>
          <div className="grid grid-cols-2 gap-2">
            <Field label="Severity" htmlFor={`${id}-severity`}>
              <Select
                id={`${id}-severity`}
                value={form.severity}
                onChange={(e) => set({ severity: e.target.value as Severity })}
              >
                {SEVERITIES.map((s) => (
                  <option key={s}>{s}</option>
                ))}
              </Select>
            </Field>
            <Field label="Category" htmlFor={`${id}-category`}>
              <Select
                id={`${id}-category`}
                value={form.category}
                onChange={(e) => set({ category: e.target.value as Category })}
              >
                {CATEGORIES.map((c) => (
                  <option key={c}>{c}</option>
                ))}
              </Select>
            </Field>
          </div>
          <Field label="Explanation" htmlFor={`${id}-explanation`}>
            <TextArea
              id={`${id}-explanation`}
              rows={4}
              className="font-sans"
              value={form.explanation}
              onChange={(e) => set({ explanation: e.target.value })}
            />
          </Field>
          <FormError message={error && !error.fields ? error.message : null} />
          <FormActions onCancel={onClose} submitLabel="Save finding" busy={save.isPending} />
        </form>
      )}
    </Modal>
  );
}
