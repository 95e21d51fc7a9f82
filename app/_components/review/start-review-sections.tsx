"use client";
/** The start-review form's sections other than the model: project, engine, scope, noise control. */
import { Field, FormError, Input, Select, TextArea } from "../ui.tsx";
import type { Draft } from "./start-review-draft.ts";
import { RadioGroup, Section } from "./start-review-fields.tsx";
import { SEVERITIES } from "./types.ts";
import type { StartReviewForm } from "./use-start-review-form.ts";

type Props = Pick<StartReviewForm, "draft" | "set" | "fieldError">;

export function ProjectField({
  draft,
  set,
  fieldError,
  projects,
}: Props & { projects: StartReviewForm["lists"]["projects"] }) {
  return (
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
  );
}

export function EngineSection({ draft, set }: Props) {
  return (
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
  );
}

export function ScopeSection({ draft, set, fieldError }: Props) {
  return (
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
  );
}

export function NoiseSection({ draft, set, fieldError }: Props) {
  const agent = draft.engine === "agent";
  return (
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
  );
}
