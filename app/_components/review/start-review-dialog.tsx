"use client";
/**
 * Start a review: project (when not fixed by the page), engine, scope, prompt, provider + model,
 * budget and noise settings. Plain form controls in a Headless UI dialog (Tab/Shift-Tab, Enter submits,
 * Escape closes); the server's zod errors are shown next to the section they concern.
 * State, lists, defaults and the call: use-start-review-form.ts; the checks and the input it sends:
 * start-review-draft.ts; the sections: start-review-sections.tsx, start-review-model.tsx.
 */
import { FormActions, FormError, Modal } from "../ui.tsx";
import { ModelSection } from "./start-review-model.tsx";
import { EngineSection, NoiseSection, ProjectField, ScopeSection } from "./start-review-sections.tsx";
import { useStartReviewForm } from "./use-start-review-form.ts";

export function StartReviewDialog({
  open,
  onClose,
  projectUid,
}: {
  open: boolean;
  onClose: () => void;
  projectUid?: string;
}) {
  const form = useStartReviewForm({ open, onClose, projectUid });
  const agent = form.draft.engine === "agent";

  return (
    <Modal open={open} onClose={onClose} title="Start a review">
      <form onSubmit={form.submit} className="max-h-[75vh] space-y-4 overflow-y-auto pr-1" noValidate>
        {!projectUid && <ProjectField {...form} projects={form.lists.projects} />}
        <EngineSection {...form} />
        <ScopeSection {...form} />
        {agent && <ModelSection {...form} />}
        <NoiseSection {...form} />
        <FormError message={form.formError} className="whitespace-pre-wrap" />
        <FormActions
          onCancel={onClose}
          submitLabel="Start review"
          busy={form.busy}
          className="border-t border-zinc-200 pt-4 dark:border-zinc-800"
        />
      </form>
    </Modal>
  );
}
