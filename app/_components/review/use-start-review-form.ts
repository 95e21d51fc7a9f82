"use client";
/**
 * The start-review dialog's state: the draft (reset each time the dialog opens), the lists it picks
 * from (projects, prompts, model connections, the provider catalog's models), the defaults it
 * preselects once they load — the workspace's default prompt, the first project, the workspace's
 * default connection (never a keyless server default) — and the `reviews.start` call with its errors
 * by field.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type FormEvent, useEffect, useMemo, useState } from "react";
import { toast } from "sonner";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { ENVIRONMENT, preselectedConnection } from "../model-connections.tsx";
import { type Draft, initialDraft, startReviewInput } from "./start-review-draft.ts";

/** The fields whose server errors show in their own section; any other shows at the bottom. */
const SECTION_FIELDS = ["scope", "model", "budget", "settings", "promptUid", "connectionUid", "projectUid"];

function useStartReviewLists(open: boolean, fixedProject: boolean) {
  const trpc = useTRPC();
  const { workspace } = useWorkspace();
  const projects = useQuery({
    ...trpc.projects.list.queryOptions({ workspaceId: workspace.id }),
    enabled: open && !fixedProject,
  });
  const prompts = useQuery({ ...trpc.prompts.list.queryOptions({ workspaceId: workspace.id }), enabled: open });
  const connections = useQuery({ ...trpc.providers.list.queryOptions({ workspaceId: workspace.id }), enabled: open });
  const catalog = useQuery({ ...trpc.providers.catalog.queryOptions(), enabled: open });
  return { projects, prompts, connections, catalog };
}

export function useStartReviewForm({
  open,
  onClose,
  projectUid,
}: {
  open: boolean;
  onClose: () => void;
  projectUid?: string;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Draft>(() => initialDraft(projectUid ?? ""));
  const [localError, setLocalError] = useState<string | null>(null);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));
  const lists = useStartReviewLists(open, !!projectUid);
  const { projects, prompts, connections, catalog } = lists;

  useEffect(() => {
    if (!open) return;
    setDraft(initialDraft(projectUid ?? ""));
    setLocalError(null);
  }, [open, projectUid]);
  // Preselect the workspace's default prompt and the first project once they load.
  const defaultPrompt = prompts.data?.find((p) => p.isDefault)?.uid ?? prompts.data?.[0]?.uid ?? "";
  useEffect(() => {
    if (open && defaultPrompt) setDraft((d) => (d.promptUid ? d : { ...d, promptUid: defaultPrompt }));
  }, [open, defaultPrompt]);
  const firstProject = projects.data?.[0]?.uid ?? "";
  useEffect(() => {
    if (open && firstProject) setDraft((d) => (d.projectUid ? d : { ...d, projectUid: firstProject }));
  }, [open, firstProject]);

  // Preselect the workspace's default connection (a keyless server default never is).
  const preselected = preselectedConnection(connections.data);
  useEffect(() => {
    if (open && preselected) setDraft((d) => (d.connectionUid ? d : { ...d, connectionUid: preselected }));
  }, [open, preselected]);
  const connection = connections.data?.find((c) => (c.uid ?? ENVIRONMENT) === draft.connectionUid);
  const models = useMemo(
    () => catalog.data?.providers.find((p) => p.id === connection?.provider)?.models ?? [],
    [catalog.data, connection?.provider],
  );

  const start = useMutation(
    trpc.reviews.start.mutationOptions({
      onSuccess: async (review) => {
        await queryClient.invalidateQueries({ queryKey: trpc.reviews.pathKey() });
        toast.success("Review started");
        onClose();
        router.push(`/reviews/${review.uid}`);
      },
    }),
  );
  const err = start.error ? errorInfo(start.error) : null;
  const fieldError = (name: string) => err?.fields?.[name]?.join(" ");

  function submit(e: FormEvent) {
    e.preventDefault();
    setLocalError(null);
    const checked = startReviewInput(draft);
    if ("error" in checked) return setLocalError(checked.error);
    start.mutate(checked.input);
  }

  const generalError = localError ?? (err && !err.fields ? err.message : null);
  const unmapped = err?.fields && !SECTION_FIELDS.some((k) => err.fields?.[k]) ? err.message : null;

  return {
    draft,
    set,
    setDraft,
    lists,
    connection,
    models,
    fieldError,
    submit,
    busy: start.isPending,
    formError: generalError ?? unmapped,
  };
}

export type StartReviewForm = ReturnType<typeof useStartReviewForm>;
