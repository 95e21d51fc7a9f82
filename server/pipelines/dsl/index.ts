/**
 * Pipeline DSL: parse an UltraRAG pipeline file and validate it statically, before any tool runs.
 *
 *   const { pipeline, diagnostics } = checkPipeline(source, { file, catalog, parameters });
 *   diagnostics.map(formatDiagnostic)   // "file:line:col: message (hint)"
 */
import type { Pipeline } from "./ast.ts";
import type { ServerCatalog } from "./catalog.ts";
import { errorsOf, PipelineInvalidError, type Diagnostic } from "./errors.ts";
import type { AliasParameters } from "./params.ts";
import { parsePipeline, type ParseOptions } from "./parse.ts";
import { validatePipeline } from "./validate.ts";

export type * from "./ast.ts";
export { stepName } from "./ast.ts";
export { catalogFromRecord, findCallable, normalizeServerPath, type ServerCatalog } from "./catalog.ts";
export {
  formatDiagnostic,
  errorsOf,
  PipelineInvalidError,
  type Diagnostic,
  type DiagnosticCode,
  type Severity,
} from "./errors.ts";
export { DEFAULT_LIMITS, type ParseLimits } from "./limits.ts";
export { readPipelineSource } from "./load.ts";
export { aliasParameters, type AliasParameters } from "./params.ts";
export { parsePipeline, type ParseOptions, type ParseResult } from "./parse.ts";
export {
  serverCatalogSchema,
  serverSignatureSchema,
  toolSignatureSchema,
  type ServerSignature,
  type ToolSignature,
} from "./schema.ts";
export { validatePipeline, type ValidateOptions } from "./validate.ts";

export interface CheckOptions extends ParseOptions {
  catalog: ServerCatalog;
  parameters?: AliasParameters;
}

export interface CheckResult {
  pipeline: Pipeline | undefined;
  /** Parse diagnostics, then validation diagnostics; `ok` ignores warnings. */
  diagnostics: Diagnostic[];
  ok: boolean;
}

/**
 * Parse, then validate. Validation is skipped when parsing found errors: a malformed step is dropped
 * from the tree, and checking the rest would blame later steps for variables it would have produced.
 */
export function checkPipeline(source: string, options: CheckOptions): CheckResult {
  const parsed = parsePipeline(source, options);
  const diagnostics = [...parsed.diagnostics];
  if (parsed.pipeline && errorsOf(diagnostics).length === 0) {
    diagnostics.push(
      ...validatePipeline(parsed.pipeline, {
        catalog: options.catalog,
        ...(options.parameters ? { parameters: options.parameters } : {}),
      }),
    );
  }
  return { pipeline: parsed.pipeline, diagnostics, ok: errorsOf(diagnostics).length === 0 };
}

/** checkPipeline for callers that stop on the first invalid file (CLI, engine). */
export function checkPipelineOrThrow(source: string, options: CheckOptions): Pipeline {
  const result = checkPipeline(source, options);
  if (!result.ok || !result.pipeline) throw new PipelineInvalidError(result.diagnostics);
  return result.pipeline;
}
