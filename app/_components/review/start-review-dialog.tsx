"use client";
/**
 * Start a review: project (when not fixed by the page), engine, scope, prompt, provider + model,
 * budget and noise settings. Plain form controls in a Headless UI dialog (Tab/Shift-Tab, Enter submits,
 * Escape closes); the server's zod errors are shown next to the section they concern.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useState, type FormEvent, type ReactNode } from "react";
import { toast } from "sonner";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { Field, FormActions, FormError, Input, Modal, Select, TextArea } from "../ui.tsx";
import {
  connectionOptionLabel,
  ENVIRONMENT,
  MODEL_PROVIDERS_HREF,
  preselectedConnection,
} from "../model-connections.tsx";
import { SEVERITIES } from "./types.ts";

type ScopeKind = "project" | "paths" | "diff";

interface Draft {
  projectUid: string;
  engine: "static" | "agent";
  scope: ScopeKind;
  paths: string;
  base: string;
  head: string;
  promptUid: string;
  connectionUid: string; // a connection's uid, ENVIRONMENT for the server's default, "" = none chosen yet
  model: string;
  maxIterations: string;
  maxCostUsd: string;
  verify: boolean;
  unverified: "keep" | "drop";
  minConfidence: string;
  minSeverity: (typeof SEVERITIES)[number];
}

const initialDraft = (projectUid: string): Draft => ({
  projectUid,
  engine: "static",
  scope: "project",
  paths: "",
  base: "",
  head: "HEAD",
  promptUid: "",
  connectionUid: "",
  model: "",
  maxIterations: "100",
  maxCostUsd: "",
  verify: true,
  unverified: "keep",
  minConfidence: "0",
  minSeverity: "info",
});

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <fieldset className="space-y-3 border-t border-zinc-200 pt-3 dark:border-zinc-800">
      <legend className="pr-2 text-xs font-semibold uppercase tracking-wide text-zinc-500">{title}</legend>
      {children}
    </fieldset>
  );
}

/** Radio buttons, one per option, announced as `label`. */
function RadioGroup<V extends string>({
  name,
  label,
  value,
  onChange,
  options,
}: {
  name: string;
  label: string;
  value: V;
  onChange: (value: V) => void;
  options: { value: V; label: string; hint?: string }[];
}) {
  return (
    <div role="radiogroup" aria-label={label} className="space-y-2">
      {options.map((o) => (
        <label key={o.value} className="flex cursor-pointer items-start gap-2 text-sm">
          <input
            type="radio"
            name={name}
            value={o.value}
            checked={value === o.value}
            onChange={() => onChange(o.value)}
            className="mt-0.5 accent-brand-600"
          />
          <span>
            {o.label}
            {o.hint && <span className="block text-xs text-zinc-500">{o.hint}</span>}
          </span>
        </label>
      ))}
    </div>
  );
}

export function StartReviewDialog({
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
  const { workspace } = useWorkspace();
  const [draft, setDraft] = useState<Draft>(() => initialDraft(projectUid ?? ""));
  const [localError, setLocalError] = useState<string | null>(null);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));

  const projects = useQuery({
    ...trpc.projects.list.queryOptions({ workspaceId: workspace.id }),
    enabled: open && !projectUid,
  });
  const prompts = useQuery({ ...trpc.prompts.list.queryOptions({ workspaceId: workspace.id }), enabled: open });
  const connections = useQuery({ ...trpc.providers.list.queryOptions({ workspaceId: workspace.id }), enabled: open });
  const catalog = useQuery({ ...trpc.providers.catalog.queryOptions(), enabled: open });

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
  const agent = draft.engine === "agent";

  function submit(e: FormEvent) {
    e.preventDefault();
    setLocalError(null);
    if (!draft.projectUid) return setLocalError("Choose the project to review.");
    const paths = draft.paths
      .split("\n")
      .map((p) => p.trim())
      .filter(Boolean);
    if (draft.scope === "paths" && paths.length === 0)
      return setLocalError("List at least one path or glob, one per line (e.g. src/api/** or server.js).");
    if (draft.scope === "diff" && (!draft.base.trim() || !draft.head.trim()))
      return setLocalError("A diff review needs both refs: the base (e.g. main) and the head (e.g. HEAD or a branch).");
    if (agent && !draft.connectionUid)
      return setLocalError(
        "Choose the model connection the agent uses. An owner adds one in Settings → Model providers.",
      );
    const maxIterations = Number(draft.maxIterations);
    const maxCostUsd = draft.maxCostUsd.trim() ? Number(draft.maxCostUsd) : undefined;
    const minConfidence = Number(draft.minConfidence || 0);
    start.mutate({
      projectUid: draft.projectUid,
      engine: draft.engine,
      scope:
        draft.scope === "project"
          ? { kind: "project" }
          : draft.scope === "paths"
            ? { kind: "paths", paths }
            : { kind: "diff", base: draft.base.trim(), head: draft.head.trim() },
      ...(agent
        ? {
            promptUid: draft.promptUid || undefined,
            connectionUid: draft.connectionUid === ENVIRONMENT ? null : draft.connectionUid,
            model: draft.model.trim() || undefined,
            budget: { maxIterations, ...(maxCostUsd !== undefined ? { maxCostUsd } : {}) },
          }
        : {}),
      settings: {
        verify: agent ? draft.verify : false,
        unverified: draft.unverified,
        minConfidence,
        minSeverity: draft.minSeverity,
      },
    });
  }

  const generalError = localError ?? (err && !err.fields ? err.message : null);
  const unmapped =
    err?.fields &&
    !["scope", "model", "budget", "settings", "promptUid", "connectionUid", "projectUid"].some((k) => err.fields?.[k])
      ? err.message
      : null;

  return (
    <Modal open={open} onClose={onClose} title="Start a review">
      <form onSubmit={submit} className="max-h-[75vh] space-y-4 overflow-y-auto pr-1" noValidate>
        {!projectUid && (
          <Field label="Project" htmlFor="review-project" error={fieldError("projectUid")}>
            <Select
              id="review-project"
              value={draft.projectUid}
              onChange={(e) => set("projectUid", e.target.value)}
              autoFocus
            >
              {projects.data?.length === 0 && (
                <option value="">No projects yet — create one and import its code first</option>
              )}
              {projects.data?.map((p) => (
                <option key={p.uid} value={p.uid}>
                  {p.name}
                </option>
              ))}
            </Select>
          </Field>
        )}
        <Section title="Engine">
          <RadioGroup
            name="engine"
            label="Engine"
            value={draft.engine}
            onChange={(engine) => set("engine", engine)}
            options={[
              {
                value: "static",
                label: "Static analysis — no LLM",
                hint: "Argus's rules, ESLint security rules, secrets. Fast, free, no model needed.",
              },
              {
                value: "agent",
                label: "Review agent (LLM)",
                hint: "A model reads the code with tools, then its findings are checked against the code.",
              },
            ]}
          />
        </Section>
        <Section title="Scope">
          <RadioGroup
            name="scope"
            label="Scope"
            value={draft.scope}
            onChange={(scope) => set("scope", scope)}
            options={[
              { value: "project", label: "Whole project" },
              { value: "paths", label: "Paths or globs" },
              {
                value: "diff",
                label: "Changes between two git refs",
                hint: "Only changed hunks are in scope; any file may be read for context.",
              },
            ]}
          />
          {draft.scope === "paths" && (
            <Field label="Paths" htmlFor="review-paths" hint="One per line: files, folders or globs (src/**/*.ts).">
              <TextArea
                id="review-paths"
                rows={3}
                value={draft.paths}
                onChange={(e) => set("paths", e.target.value)}
                placeholder={"src/api/**\nserver.js"}
              />
            </Field>
          )}
          {draft.scope === "diff" && (
            <div className="grid grid-cols-2 gap-3">
              <Field label="Base ref" htmlFor="review-base">
                <Input
                  id="review-base"
                  value={draft.base}
                  onChange={(e) => set("base", e.target.value)}
                  placeholder="main"
                />
              </Field>
              <Field label="Head ref" htmlFor="review-head">
                <Input
                  id="review-head"
                  value={draft.head}
                  onChange={(e) => set("head", e.target.value)}
                  placeholder="HEAD"
                />
              </Field>
            </div>
          )}
          <FormError message={fieldError("scope")} />
        </Section>
        {agent && (
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
            <FormError message={fieldError("budget")} />
          </Section>
        )}
        <Section title="Noise control">
          {agent && (
            <>
              <label className="flex items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  checked={draft.verify}
                  onChange={(e) => set("verify", e.target.checked)}
                  className="accent-brand-600"
                />
                Verify each finding against the code (a separate check per finding)
              </label>
              <Field label="Findings the check did not confirm" htmlFor="review-unverified">
                <Select
                  id="review-unverified"
                  value={draft.unverified}
                  onChange={(e) => set("unverified", e.target.value as Draft["unverified"])}
                  disabled={!draft.verify}
                >
                  <option value="keep">Keep them, marked “unverified”</option>
                  <option value="drop">Drop them</option>
                </Select>
              </Field>
            </>
          )}
          <div className="grid grid-cols-2 gap-3">
            <Field label="Min confidence" htmlFor="review-confidence" hint="0–1">
              <Input
                id="review-confidence"
                type="number"
                min={0}
                max={1}
                step="0.05"
                value={draft.minConfidence}
                onChange={(e) => set("minConfidence", e.target.value)}
              />
            </Field>
            <Field label="Severity floor" htmlFor="review-severity">
              <Select
                id="review-severity"
                value={draft.minSeverity}
                onChange={(e) => set("minSeverity", e.target.value as Draft["minSeverity"])}
              >
                {SEVERITIES.map((s) => (
                  <option key={s} value={s}>
                    {s} and worse
                  </option>
                ))}
              </Select>
            </Field>
          </div>
          <FormError message={fieldError("settings")} />
        </Section>
        <FormError message={generalError ?? unmapped} className="whitespace-pre-wrap" />
        <FormActions
          onCancel={onClose}
          submitLabel="Start review"
          busy={start.isPending}
          className="border-t border-zinc-200 pt-4 dark:border-zinc-800"
        />
      </form>
    </Modal>
  );
}
