"use client";
/**
 * Start a review: project (when not fixed by the page), engine, scope, prompt, provider + model,
 * budget and noise settings. Plain form controls in a Headless UI dialog (Tab/Shift-Tab, Enter submits,
 * Escape closes); the server's zod errors are shown next to the section they concern.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useState, type FormEvent, type ReactNode } from "react";
import { toast } from "sonner";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { Button, Field, Input, Modal, Select, TextArea } from "../ui.tsx";
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
  connectionUid: string; // "" = the server's environment default
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

function Radio({
  name,
  value,
  checked,
  onChange,
  label,
  hint,
}: {
  name: string;
  value: string;
  checked: boolean;
  onChange: (v: string) => void;
  label: string;
  hint?: string;
}) {
  return (
    <label className="flex cursor-pointer items-start gap-2 text-sm">
      <input
        type="radio"
        name={name}
        value={value}
        checked={checked}
        onChange={() => onChange(value)}
        className="mt-0.5 accent-brand-600"
      />
      <span>
        {label}
        {hint && <span className="block text-xs text-zinc-500">{hint}</span>}
      </span>
    </label>
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

  const connection = connections.data?.find((c) => (c.uid ?? "") === draft.connectionUid);
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
            connectionUid: draft.connectionUid || null,
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
          <div role="radiogroup" aria-label="Engine" className="space-y-2">
            <Radio
              name="engine"
              value="static"
              checked={draft.engine === "static"}
              onChange={() => set("engine", "static")}
              label="Static analysis — no LLM"
              hint="Argus's rules, ESLint security rules, secrets. Fast, free, no model needed."
            />
            <Radio
              name="engine"
              value="agent"
              checked={draft.engine === "agent"}
              onChange={() => set("engine", "agent")}
              label="Review agent (LLM)"
              hint="A model reads the code with tools, then its findings are checked against the code."
            />
          </div>
        </Section>
        <Section title="Scope">
          <div role="radiogroup" aria-label="Scope" className="space-y-2">
            <Radio
              name="scope"
              value="project"
              checked={draft.scope === "project"}
              onChange={() => set("scope", "project")}
              label="Whole project"
            />
            <Radio
              name="scope"
              value="paths"
              checked={draft.scope === "paths"}
              onChange={() => set("scope", "paths")}
              label="Paths or globs"
            />
            <Radio
              name="scope"
              value="diff"
              checked={draft.scope === "diff"}
              onChange={() => set("scope", "diff")}
              label="Changes between two git refs"
              hint="Only changed hunks are in scope; any file may be read for context."
            />
          </div>
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
          {fieldError("scope") && (
            <p role="alert" className="text-sm text-red-600 dark:text-red-400">
              {fieldError("scope")}
            </p>
          )}
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
            <Field label="Provider" htmlFor="review-connection" error={fieldError("connectionUid")}>
              <Select
                id="review-connection"
                value={draft.connectionUid}
                onChange={(e) => setDraft((d) => ({ ...d, connectionUid: e.target.value, model: "" }))}
              >
                {connections.data?.map((c) => (
                  <option key={c.uid ?? "env"} value={c.uid ?? ""}>
                    {c.name} — {c.provider}
                    {c.source === "environment" && !c.hasKey && c.provider !== "openai-compatible"
                      ? " (no key configured)"
                      : ""}
                  </option>
                ))}
              </Select>
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
            {fieldError("budget") && (
              <p role="alert" className="text-sm text-red-600 dark:text-red-400">
                {fieldError("budget")}
              </p>
            )}
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
          {fieldError("settings") && (
            <p role="alert" className="text-sm text-red-600 dark:text-red-400">
              {fieldError("settings")}
            </p>
          )}
        </Section>
        {(generalError ?? unmapped) && (
          <p role="alert" className="whitespace-pre-wrap text-sm text-red-600 dark:text-red-400">
            {generalError ?? unmapped}
          </p>
        )}
        <div className="flex justify-end gap-2 border-t border-zinc-200 pt-4 dark:border-zinc-800">
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" busy={start.isPending}>
            Start review
          </Button>
        </div>
      </form>
    </Modal>
  );
}
