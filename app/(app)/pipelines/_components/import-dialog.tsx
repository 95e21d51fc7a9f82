"use client";
/**
 * Import a pipeline from YAML, pasted or from a file: validated as you type (the engine's problems at
 * their lines), imported even when invalid — as a draft that cannot run until it is fixed.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Field, FormActions, FormError, Input, Modal } from "@/app/_components/ui.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { pipelineNameSchema } from "@/server/shared/pipelines.ts";
import { pipelineHref } from "./types.ts";
import { useLiveInspection } from "./use-live-inspection.ts";
import { YamlEditor } from "./yaml-editor.tsx";

const MAX_BYTES = 256 * 1024;

export function ImportDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const { workspace } = useWorkspace();
  const [name, setName] = useState("");
  const [source, setSource] = useState("");
  const [error, setError] = useState<string | null>(null);
  const inspection = useLiveInspection(workspace.id, source, { reportErrors: false });

  const create = useMutation(
    trpc.pipelines.create.mutationOptions({
      onSuccess: async (r) => {
        await queryClient.invalidateQueries({ queryKey: trpc.pipelines.list.pathKey() });
        router.push(pipelineHref(r.uid));
      },
      onError: (err) => setError(errorInfo(err).message),
    }),
  );

  async function pick(f: File | undefined) {
    if (!f) return;
    if (f.size > MAX_BYTES) return setError(`${f.name} is over 256 KB: a pipeline is a short list of steps.`);
    setError(null);
    setSource(await f.text());
    if (!name) setName(f.name.replace(/\.(ya?ml)$/i, "").replace(/[^A-Za-z0-9_-]+/g, "_"));
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    const parsed = pipelineNameSchema.safeParse(name);
    if (!parsed.success) return setError(parsed.error.issues[0]?.message ?? "Check the name.");
    if (!source.trim()) return setError("Paste the pipeline's YAML or choose a file.");
    create.mutate({ workspaceId: workspace.id, name: parsed.data, source });
  }

  const diagnostics = source.trim() ? (inspection?.diagnostics ?? []) : [];
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  return (
    <Modal open={open} onClose={onClose} title="Import pipeline YAML" wide>
      <form onSubmit={submit} className="space-y-4">
        <Field label="Name" htmlFor="import-name" hint="Letters, digits, _ and -: it names the pipeline's files.">
          <Input id="import-name" value={name} onChange={(e) => setName(e.target.value)} />
        </Field>
        <Field label="YAML file" htmlFor="import-file">
          <input
            id="import-file"
            type="file"
            accept=".yaml,.yml,text/yaml,application/yaml"
            onChange={(e) => void pick(e.target.files?.[0])}
            className="block w-full text-sm"
          />
        </Field>
        <div>
          <p className="mb-1 text-sm font-medium">Or paste it</p>
          <YamlEditor
            label="Pipeline YAML to import"
            value={source}
            onChange={setSource}
            diagnostics={diagnostics}
            height="16rem"
          />
        </div>
        {errors > 0 && (
          <p className="text-sm text-amber-700 dark:text-amber-300">
            It will be imported as a draft: fix the {errors === 1 ? "problem" : `${errors} problems`} before it can run.
          </p>
        )}
        <FormError message={error} />
        <FormActions onCancel={onClose} submitLabel="Import" busy={create.isPending} />
      </form>
    </Modal>
  );
}
