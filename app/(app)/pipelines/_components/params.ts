/** The parameter file the page edits: alias → section, rebuilt from the form's fields where needed. */
import type { ParamField } from "@/server/shared/pipelines.ts";

export type ParameterFile = Record<string, Record<string, unknown> | null>;

const isMapping = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

function setAt(target: Record<string, unknown>, path: readonly string[], value: unknown) {
  let cur = target;
  for (const key of path.slice(0, -1)) {
    if (!isMapping(cur[key])) cur[key] = {};
    cur = cur[key] as Record<string, unknown>;
  }
  cur[path[path.length - 1]!] = value;
}

/** An alias's effective section as the fields show it (secrets as the mask or empty). */
export function sectionOf(fields: readonly ParamField[], alias: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) if (f.alias === alias && f.path.length) setAt(out, f.path, f.value);
  return out;
}

/**
 * The parameter file with one value changed. An alias the file does not list yet gets its whole
 * effective section first: a section replaces the server's defaults (UltraRAG's per-alias update).
 */
export function withValue(file: ParameterFile, fields: readonly ParamField[], field: ParamField, value: unknown) {
  const next: ParameterFile = structuredClone(file);
  const section = isMapping(next[field.alias]) ? next[field.alias]! : sectionOf(fields, field.alias);
  setAt(section, field.path, value);
  next[field.alias] = section;
  return next;
}

/** The value of a field in the parameter file, falling back to the field's own. */
export function valueIn(file: ParameterFile, field: ParamField): unknown {
  let cur: unknown = file[field.alias];
  for (const key of field.path) {
    if (!isMapping(cur) || !Object.hasOwn(cur, key)) return field.value;
    cur = cur[key];
  }
  return cur;
}
