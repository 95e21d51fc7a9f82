"use client";
/**
 * The parameter form, generated from the servers' parameters (server defaults replaced per alias by
 * the pipeline's parameter file): one field per value, grouped by alias. Numbers, booleans, lists and
 * mappings are checked as typed (the field is named in the message) and only applied when they read
 * as their type; secrets are password fields that show whether a key is stored, never the key. A
 * retriever's collection_name also offers the workspace's knowledge bases (it writes kb:<name>).
 */
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { FormError, Input, Select, TextArea } from "@/app/_components/ui.tsx";
import { readParamInput, SECRET_MASK, type ParamField } from "@/server/shared/pipelines.ts";
import { valueIn, withValue, type ParameterFile } from "./params.ts";

const textOf = (f: ParamField, v: unknown) =>
  f.type === "list" || f.type === "mapping" ? JSON.stringify(v) : v === null || v === undefined ? "" : String(v);

/** A retriever's source: any name, or one of the workspace's knowledge bases (written as kb:<name>). */
const isSourceField = (f: ParamField) => f.path[f.path.length - 1] === "collection_name" && f.type !== "mapping";

function FieldRow({
  field,
  value,
  readOnly,
  onValue,
  knowledgeBases,
}: {
  field: ParamField;
  value: unknown;
  readOnly: boolean;
  onValue: (v: unknown) => void;
  knowledgeBases: readonly string[];
}) {
  const id = `param-${field.alias}-${field.path.join("-")}`;
  const name = field.path.join(".");
  const [text, setText] = useState(() => (field.secret ? "" : textOf(field, value)));
  const [error, setError] = useState<string | null>(null);
  const apply = (t: string) => {
    setText(t);
    if (field.secret) {
      onValue(t === "" ? SECRET_MASK : t);
      return;
    }
    const r = readParamInput(field, t);
    setError(r.ok ? null : r.error);
    if (r.ok) onValue(r.value);
  };
  let control;
  if (field.type === "boolean")
    control = (
      <Select id={id} size="compact" value={String(value)} disabled={readOnly} onChange={(e) => apply(e.target.value)}>
        <option value="true">true</option>
        <option value="false">false</option>
      </Select>
    );
  else if (field.type === "list" || field.type === "mapping")
    control = (
      <TextArea
        id={id}
        rows={Math.min(6, Math.max(1, Math.ceil(text.length / 60)))}
        className="font-mono text-xs"
        value={text}
        readOnly={readOnly}
        invalid={Boolean(error)}
        onChange={(e) => apply(e.target.value)}
      />
    );
  else
    control = (
      <Input
        id={id}
        type={field.secret ? "password" : "text"}
        inputMode={field.type === "integer" || field.type === "number" ? "decimal" : undefined}
        autoComplete="off"
        className="font-mono text-xs"
        placeholder={field.secret ? (field.set ? "a key is stored — type to replace it" : "not set") : undefined}
        value={text}
        readOnly={readOnly}
        invalid={Boolean(error)}
        onChange={(e) => apply(e.target.value)}
      />
    );
  const kbValue = text.startsWith("kb:") && knowledgeBases.includes(text.slice(3)) ? text : "";
  const kbPicker = isSourceField(field) && !readOnly && (
    <Select
      size="compact"
      aria-label={`${name}: knowledge base`}
      className="mt-1"
      value={kbValue}
      onChange={(e) => apply(e.target.value)}
    >
      <option value="" disabled>
        {knowledgeBases.length ? "Read a knowledge base…" : "No knowledge bases in this workspace yet"}
      </option>
      {knowledgeBases.map((kb) => (
        <option key={kb} value={`kb:${kb}`}>
          {kb}
        </option>
      ))}
    </Select>
  );
  return (
    <div className="grid gap-1 sm:grid-cols-[14rem_1fr] sm:items-start sm:gap-3">
      <label htmlFor={id} className="truncate pt-1.5 font-mono text-xs" title={name}>
        {name} <span className="text-zinc-400">{field.secret ? "secret" : field.type}</span>
      </label>
      <div className="min-w-0">
        {control}
        {kbPicker}
        <FormError message={error} className="mt-1 text-xs" />
      </div>
    </div>
  );
}

export function ParameterForm({
  fields,
  file,
  onChange,
  readOnly,
}: {
  fields: readonly ParamField[];
  file: ParameterFile;
  onChange: (file: ParameterFile) => void;
  readOnly: boolean;
}) {
  const trpc = useTRPC();
  const { workspace } = useWorkspace();
  const wantsBases = fields.some(isSourceField);
  const bases = useQuery({ ...trpc.knowledge.list.queryOptions({ workspaceId: workspace.id }), enabled: wantsBases });
  const knowledgeBases = bases.data?.map((b) => b.name) ?? [];
  const aliases = [...new Set(fields.map((f) => f.alias))];
  if (fields.length === 0) return <p className="text-sm text-zinc-500">This pipeline's servers take no parameters.</p>;
  return (
    <div className="space-y-3">
      {aliases.map((alias) => (
        <details
          key={alias}
          className="rounded-md border border-zinc-200 dark:border-zinc-800"
          open={aliases.length <= 3}
        >
          <summary className="cursor-pointer px-3 py-2 font-mono text-sm font-medium">{alias}</summary>
          <div className="space-y-2 border-t border-zinc-200 px-3 py-3 dark:border-zinc-800">
            {fields
              .filter((f) => f.alias === alias)
              .map((f) => (
                <FieldRow
                  key={f.path.join(".")}
                  field={f}
                  value={valueIn(file, f)}
                  readOnly={readOnly}
                  knowledgeBases={knowledgeBases}
                  onValue={(v) => onChange(withValue(file, fields, f, v))}
                />
              ))}
          </div>
        </details>
      ))}
    </div>
  );
}
