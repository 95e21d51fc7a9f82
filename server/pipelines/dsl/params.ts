/**
 * The parameters a `$name` input resolves against, per alias (spec §2.2): each alias starts from its
 * server's defaults (`parameter.yaml`); a pipeline parameter file section for the alias REPLACES that
 * set — UltraRAG does a per-alias `dict.update`, not a deep merge.
 */
import type { Pipeline } from "./ast.ts";
import type { ServerCatalog } from "./catalog.ts";

export type AliasParameters = Record<string, Record<string, unknown>>;

export function aliasParameters(
  pipeline: Pipeline,
  catalog: ServerCatalog,
  parameterFile?: Record<string, unknown>,
): AliasParameters {
  const out: AliasParameters = {};
  for (const { alias, path } of pipeline.servers) out[alias] = { ...(catalog.lookup(path)?.parameters ?? {}) };
  for (const [alias, section] of Object.entries(parameterFile ?? {})) {
    // An empty section (`custom:`) is an empty parameter set, not "keep the defaults".
    if (section === null || section === undefined) out[alias] = {};
    else if (typeof section === "object" && !Array.isArray(section))
      out[alias] = { ...(section as Record<string, unknown>) };
  }
  return out;
}
