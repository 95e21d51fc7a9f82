/**
 * Loading what a run or build needs from disk (UltraRAG's load_pipeline_context, spec §2.1): the
 * pipeline file (relative to the run's directory) and the parameter file — `--param` as given
 * (absolute, relative to the run's directory, or to the pipeline's directory; it must exist), else
 * `<pipeline dir>/parameter/<stem>_parameter.yaml` when present.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import path from "node:path";
import type { Pipeline } from "../dsl/ast.ts";
import { errorsOf, PipelineInvalidError } from "../dsl/errors.ts";
import { readPipelineSource } from "../dsl/load.ts";
import { parsePipeline } from "../dsl/parse.ts";
import { readParameterFile, ServerResolveError } from "../registry.ts";

export class ParameterFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ParameterFileError";
  }

  /** Names the parameter file and what is wrong with it (server/errors.ts isUserFacing). */
  get userFacing(): boolean {
    return true;
  }
}

export interface PipelineContext {
  /** Absolute path of the pipeline file. */
  file: string;
  /** As the user wrote it (shown in diagnostics). */
  displayFile: string;
  cwd: string;
  /** Directory of the pipeline file. */
  dir: string;
  /** File name without extension: names build outputs and the memory file. */
  stem: string;
  source: string;
  /** sha256 of the source: the pipeline's version for run records. */
  hash: string;
  pipeline: Pipeline;
  /** The parameter file in use, absolute; undefined when there is none. */
  parameterFile: string | undefined;
  /** Its content: alias → parameters (replaces the server defaults per alias). */
  parameterData: Record<string, unknown>;
}

export const defaultParameterFile = (dir: string, stem: string) =>
  path.join(dir, "parameter", `${stem}_parameter.yaml`);

/** Resolves `--param` as UltraRAG does; throws with upstream's message when the file does not exist. */
export function resolveParameterFile(param: string, cwd: string, dir: string): string {
  for (const candidate of path.isAbsolute(param) ? [param] : [path.resolve(cwd, param), path.resolve(dir, param)]) {
    if (existsSync(candidate)) return candidate;
  }
  throw new ParameterFileError(`[UltraRAG Error] Parameter file '${param}' does not exist`);
}

export function readParameterData(file: string): Record<string, unknown> {
  try {
    const data = readParameterFile(file);
    for (const [alias, section] of Object.entries(data)) {
      if (section !== null && (typeof section !== "object" || Array.isArray(section))) {
        throw new ParameterFileError(`${file}: section \`${alias}\` must be a mapping of parameter names to values`);
      }
    }
    return data;
  } catch (err) {
    if (err instanceof ServerResolveError) throw new ParameterFileError(err.message);
    throw err;
  }
}

export async function loadPipelineContext(
  file: string,
  options: { cwd: string; param?: string | undefined; parsed?: Pipeline | undefined },
): Promise<PipelineContext> {
  const cwd = path.resolve(options.cwd);
  const abs = path.resolve(cwd, file);
  const loaded = await readPipelineSource(abs, {}, file);
  if (loaded.diagnostic) throw new PipelineInvalidError([loaded.diagnostic]);
  // A caller that parsed this very source already (the web app's run start) passes its tree.
  const parsed = options.parsed
    ? { pipeline: options.parsed, diagnostics: [] }
    : parsePipeline(loaded.source, { file });
  if (!parsed.pipeline || errorsOf(parsed.diagnostics).length > 0) throw new PipelineInvalidError(parsed.diagnostics);
  const dir = path.dirname(abs);
  const stem = path.basename(abs).replace(/\.[^.]*$/, "");
  let parameterFile: string | undefined;
  if (options.param !== undefined) parameterFile = resolveParameterFile(options.param, cwd, dir);
  else if (existsSync(defaultParameterFile(dir, stem))) parameterFile = defaultParameterFile(dir, stem);
  return {
    file: abs,
    displayFile: file,
    cwd,
    dir,
    stem,
    source: loaded.source,
    hash: createHash("sha256").update(loaded.source).digest("hex"),
    pipeline: parsed.pipeline,
    parameterFile,
    parameterData: parameterFile ? readParameterData(parameterFile) : {},
  };
}
