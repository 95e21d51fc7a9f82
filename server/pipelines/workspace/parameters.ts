/**
 * A pipeline's parameter file as the web app keeps it: alias → values (UltraRAG's per-alias
 * sections). Secret values (API keys, tokens: `isSecretKey`) never leave the server: they are
 * blanked in what is stored and sent, sealed apart (`secrets`), and a form that sends the mask back
 * keeps the stored value. Parameter values that name files must stay inside the run's directory.
 */
import { z } from "zod";
import type { AliasParameters } from "../dsl/params.ts";
import { invalid } from "../../errors.ts";
import { isSecretKey, paramTypeOf, SECRET_MASK, type ParamField } from "../../shared/pipelines.ts";

export type Secrets = Record<string, string>;

const isMapping = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** A parameter file: a mapping of aliases, each a mapping of parameters (or empty). */
export const parameterFileSchema = z
  .record(z.string().max(100), z.union([z.record(z.string(), z.unknown()), z.null()]))
  .refine((v) => JSON.stringify(v).length <= 1_000_000, "Keep the parameters under 1 MB.");

export const secretKey = (alias: string, path: readonly string[]) => JSON.stringify([alias, ...path]);

function walk(value: unknown, path: string[], visit: (path: string[], leaf: unknown) => unknown): unknown {
  if (isMapping(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = walk(v, [...path, k], visit);
    return out;
  }
  return visit(path, value);
}

/**
 * Splits parameters as the form sent them into what is stored (secrets blanked) and the secrets:
 * a secret sent as the mask keeps its stored value, an empty one is cleared, anything else replaces it.
 */
export function splitSecrets(
  parameters: Record<string, unknown>,
  stored: Secrets,
): { parameters: Record<string, unknown>; secrets: Secrets } {
  const secrets: Secrets = {};
  const out: Record<string, unknown> = {};
  for (const [alias, section] of Object.entries(parameters)) {
    out[alias] = walk(section, [], (path, leaf) => {
      const key = path[path.length - 1];
      if (key === undefined || !isSecretKey(key) || typeof leaf !== "string") return leaf;
      const id = secretKey(alias, path);
      if (leaf === SECRET_MASK) {
        if (stored[id]) secrets[id] = stored[id];
      } else if (leaf !== "") secrets[id] = leaf;
      return "";
    });
  }
  return { parameters: out, secrets };
}

/** The parameters with the sealed secrets put back (for a run). */
export function withSecrets(parameters: Record<string, unknown>, secrets: Secrets): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [alias, section] of Object.entries(parameters))
    out[alias] = walk(section, [], (path, leaf) => secrets[secretKey(alias, path)] ?? leaf);
  return out;
}

/** The stored parameters as the browser gets them: a secret that is stored shows as the mask. */
export function maskStored(parameters: Record<string, unknown>, secrets: Secrets): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [alias, section] of Object.entries(parameters))
    out[alias] = walk(section, [], (path, leaf) => (secrets[secretKey(alias, path)] ? SECRET_MASK : leaf));
  return out;
}

/** Blanks every secret value (parameters read from a file, e.g. the gallery's, before they are shown). */
export const blankSecrets = (parameters: Record<string, unknown>) => splitSecrets(parameters, {}).parameters;

/** The form's fields: every leaf of every alias's effective parameters (lists are one field). */
export function paramFields(effective: AliasParameters, secrets: Secrets): ParamField[] {
  const fields: ParamField[] = [];
  for (const [alias, section] of Object.entries(effective)) {
    walk(section, [], (path, leaf) => {
      const key = path[path.length - 1];
      const secret = key !== undefined && isSecretKey(key);
      const set = secret && (Boolean(secrets[secretKey(alias, path)]) || (typeof leaf === "string" && leaf !== ""));
      fields.push({
        alias,
        path,
        type: secret ? "string" : paramTypeOf(leaf),
        value: secret ? (set ? SECRET_MASK : "") : leaf,
        secret,
        ...(secret ? { set } : {}),
      });
      return leaf;
    });
  }
  return fields;
}

/** Keys whose values name files or folders the servers read or write. */
const FILE_KEY = /(path|_dir|_root|uri)$/i;

/**
 * Refuses parameter values that name a file outside the run's directory (absolute, `~`, `..`): a
 * pipeline saved in the web app is another user's input, and the servers resolve these against the
 * run's directory. The first offending parameter is named.
 */
export function assertPathsInside(parameters: AliasParameters): void {
  for (const [alias, section] of Object.entries(parameters)) {
    walk(section, [], (path, leaf) => {
      const key = path[path.length - 1];
      if (key === undefined || !FILE_KEY.test(key) || typeof leaf !== "string" || leaf === "") return leaf;
      const bad =
        leaf.includes("\0") ||
        /^([A-Za-z]:)?[\\/]/.test(leaf) ||
        leaf.startsWith("~") ||
        /^[a-z][a-z0-9+.-]*:\/\//i.test(leaf) ||
        leaf.split(/[\\/]/).includes("..");
      if (bad)
        throw invalid(
          `${[alias, ...path].join(".")} must be a path inside the run's folder (like data/questions.jsonl), not ${JSON.stringify(leaf.slice(0, 120))}.`,
        );
      return leaf;
    });
  }
}
