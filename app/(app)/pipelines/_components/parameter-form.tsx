"use client";
/**
 * The parameter form, generated from the servers' parameters (server defaults replaced per alias by
 * the pipeline's parameter file): one field per value, grouped by server alias, each with a plain
 * label, its YAML name and a line of help. The values the steps read come first; the settings of
 * backends not in use and the values no step reads are folded under "Advanced" (param-guide.ts); a
 * backend is picked from the blocks its configs offer. Numbers, booleans, lists and
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
import { BACKEND_NAMES, backendChoices, groupParams } from "@/server/shared/param-guide.ts";
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
  backends,
}: {
  field: ParamField;
  value: unknown;
  readOnly: boolean;
  onValue: (v: unknown) => void;
  knowledgeBases: readonly string[];
  /** For a backend selector: the backends it can pick. */
  backends: readonly string[];
}) {
  const id = `param-${field.alias}-${field.path.join("-")}`;
  const aboutId = `${id}-about`;
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
  if (backends.length > 0)
    control = (
      <Select
        id={id}
        aria-describedby={aboutId}
        value={String(value)}
        disabled={readOnly}
        onChange={(e) => apply(e.target.value)}
      >
        {[...new Set([...backends, String(value)])].map((b) => (
          <option key={b} value={b}>
            {BACKEND_NAMES[b] ? `${BACKEND_NAMES[b]} (${b})` : b}
          </option>
        ))}
      </Select>
    );
  else if (field.type === "boolean")
    control = (
      <Select
        id={id}
        size="compact"
        aria-describedby={aboutId}
        value={String(value)}
        disabled={readOnly}
        onChange={(e) => apply(e.target.value)}
      >
        <option value="true">yes</option>
        <option value="false">no</option>
      </Select>
    );
  else if (field.type === "list" || field.type === "mapping")
    control = (
      <TextArea
        id={id}
        aria-describedby={aboutId}
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
        aria-describedby={aboutId}
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
    <div className="grid gap-1 sm:grid-cols-[minmax(0,16rem)_minmax(0,1fr)] sm:items-start sm:gap-3">
      <div className="min-w-0 pt-1">
        <label htmlFor={id} className="block text-sm font-medium break-words">
          {field.label ?? name}
        </label>
        <p id={aboutId} className="text-xs text-zinc-500 dark:text-zinc-400">
          <code className="break-all">{name}</code> · {field.secret ? "secret" : field.type}
          {field.help && <span className="block">{field.help}</span>}
        </p>
      </div>
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
  if (fields.length === 0) return <p className="text-sm text-zinc-500">This pipeline's servers take no parameters.</p>;
  const row = (f: ParamField) => (
    <FieldRow
      key={f.path.join(".")}
      field={f}
      value={valueIn(file, f)}
      readOnly={readOnly}
      knowledgeBases={knowledgeBases}
      backends={backendChoices(fields, f)}
      onValue={(v) => onChange(withValue(file, fields, f, v))}
    />
  );
  return (
    <div className="space-y-3">
      {groupParams(fields, (f) => valueIn(file, f)).map((g) => (
        <section
          key={g.alias}
          aria-label={`${g.alias} parameters`}
          className="rounded-md border border-zinc-200 dark:border-zinc-800"
        >
          <h3 className="flex flex-wrap items-baseline gap-x-2 border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
            <span className="font-mono text-sm font-medium">{g.alias}</span>
            {g.server && <span className="text-xs text-zinc-500">servers/{g.server}</span>}
          </h3>
          <div className="space-y-3 px-3 py-3">
            {g.main.length > 0 ? (
              g.main.map(row)
            ) : (
              <p className="text-sm text-zinc-500">No step of this pipeline reads these settings.</p>
            )}
            {(g.otherBackends.length > 0 || g.unread.length > 0) && (
              <details className="rounded border border-dashed border-zinc-200 dark:border-zinc-800">
                <summary className="cursor-pointer px-2 py-1.5 text-sm text-zinc-600 dark:text-zinc-300">
                  Advanced ({g.otherBackends.length + g.unread.length})
                </summary>
                <div className="space-y-3 px-2 pb-3">
                  {g.otherBackends.length > 0 && (
                    <>
                      <p className="text-xs text-zinc-500">Settings of backends this server does not use now.</p>
                      {g.otherBackends.map(row)}
                    </>
                  )}
                  {g.unread.length > 0 && (
                    <>
                      <p className="text-xs text-zinc-500">Not read by any step of this pipeline.</p>
                      {g.unread.map(row)}
                    </>
                  )}
                </div>
              </details>
            )}
          </div>
        </section>
      ))}
    </div>
  );
}
