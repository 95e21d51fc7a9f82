/**
 * What the builder assistant's model answered, read as hostile input: one JSON object of bounded
 * size, naming a whole new pipeline YAML and/or parameter changes for this pipeline's own aliases.
 * Secret values (API keys) are never taken from the model, and a prompt template must be one of the
 * gallery's templates (`prompt/<name>.jinja`), the only template files a pipeline's run can read.
 */
import { z } from "zod";
import { isSecretKey, paramTypeOf, SECRET_MASK } from "../../shared/pipelines.ts";

/** The model's whole answer, in characters. */
export const MAX_ANSWER = 200_000;
export const MAX_YAML = 64 * 1024;
const MAX_PARAMETERS = 64 * 1024;

const answerSchema = z.object({
  summary: z.string().trim().min(1, "summary is empty").max(600, "summary is over 600 characters"),
  yaml: z.string().max(MAX_YAML, `yaml is over ${MAX_YAML} characters`).nullish(),
  parameters: z
    .record(z.string().max(100), z.record(z.string().max(200), z.unknown()))
    .refine((p) => JSON.stringify(p).length <= MAX_PARAMETERS, "parameters are over 64 KB")
    .nullish(),
});

export interface RawProposal {
  summary: string;
  yaml: string | null;
  parameters: Record<string, Record<string, unknown>> | null;
}

export type Read<T> = { ok: true; value: T } | { ok: false; error: string };

/** The JSON object in the answer (bare, or in a ```json fence). */
export function readAnswer(text: string): Read<RawProposal> {
  if (text.length > MAX_ANSWER) return { ok: false, error: `the answer is over ${MAX_ANSWER} characters` };
  const fenced = /```(?:json)?\s*\n([\s\S]*?)\n```/.exec(text)?.[1];
  const body = fenced ?? text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1);
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false, error: "the answer is not one JSON object" };
  }
  const parsed = answerSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { ok: false, error: `${issue.path.join(".") || "answer"}: ${issue.message}` };
  }
  const { summary, yaml, parameters } = parsed.data;
  if (!yaml && !parameters) return { ok: false, error: "the answer changes neither the YAML nor the parameters" };
  return { ok: true, value: { summary, yaml: yaml ?? null, parameters: parameters ?? null } };
}

const isMapping = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

const kindOf = (v: unknown) => {
  const t = paramTypeOf(v);
  return t === "integer" ? "number" : t;
};

/** `patch` merged into `base`; a value of another type than the one it replaces is refused (named). */
function merge(base: unknown, patch: Record<string, unknown>, at: string[], drop: string[]): Read<unknown> {
  const out: Record<string, unknown> = isMapping(base) ? { ...base } : {};
  for (const [k, v] of Object.entries(patch)) {
    const path = [...at, k];
    if (isSecretKey(k)) {
      drop.push(path.join("."));
      continue; // the stored key (or its mask) stays
    }
    const old = out[k];
    if (isMapping(v) && isMapping(old)) {
      const inner = merge(old, v, path, drop);
      if (!inner.ok) return inner;
      out[k] = inner.value;
      continue;
    }
    if (old !== undefined && old !== null && v !== null && kindOf(old) !== kindOf(v))
      return { ok: false, error: `${path.join(".")}: must be a ${kindOf(old)}, not ${JSON.stringify(v).slice(0, 60)}` };
    out[k] = v;
  }
  return { ok: true, value: out };
}

/**
 * The parameter file after the proposal's changes (merged per alias into the current file), or why
 * not: an alias this pipeline does not declare, or a template that is not one of `templates`.
 */
export function applyParameters(
  current: Record<string, unknown>,
  patch: Record<string, Record<string, unknown>> | null,
  ctx: {
    aliases: readonly string[];
    templates: readonly string[];
    /** What each alias runs with now (its server's defaults when the file has no section for it). */
    effective?: Record<string, unknown>;
  },
): Read<{ parameters: Record<string, unknown>; ignoredSecrets: string[] }> {
  if (!patch) return { ok: true, value: { parameters: current, ignoredSecrets: [] } };
  const next: Record<string, unknown> = { ...current };
  const ignoredSecrets: string[] = [];
  for (const [alias, values] of Object.entries(patch)) {
    if (!ctx.aliases.includes(alias))
      return { ok: false, error: `parameters.${alias}: this pipeline has no server alias "${alias}"` };
    const merged = merge(current[alias] ?? ctx.effective?.[alias], values, [alias], ignoredSecrets);
    if (!merged.ok) return merged;
    next[alias] = merged.value;
  }
  const bad = badTemplate(next, ctx.templates);
  if (bad) return { ok: false, error: bad };
  return { ok: true, value: { parameters: next, ignoredSecrets } };
}

function badTemplate(file: Record<string, unknown>, templates: readonly string[]): string | null {
  const visit = (v: unknown, path: string[]): string | null => {
    if (isMapping(v)) {
      for (const [k, x] of Object.entries(v)) {
        const hit = visit(x, [...path, k]);
        if (hit) return hit;
      }
      return null;
    }
    const key = path[path.length - 1] ?? "";
    if (/template$/i.test(key) && typeof v === "string" && v !== "" && !templates.includes(v))
      return `${path.join(".")}: "${v.slice(0, 80)}" is not one of the gallery's templates (${templates.join(", ")})`;
    return null;
  };
  return visit(file, []);
}

/** The parameters as the model may see them: every secret value masked. */
export function maskSecrets(file: Record<string, unknown>): Record<string, unknown> {
  const walk = (v: unknown, key: string): unknown =>
    isMapping(v)
      ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]))
      : isSecretKey(key) && typeof v === "string" && v !== ""
        ? SECRET_MASK
        : v;
  return walk(file, "") as Record<string, unknown>;
}
