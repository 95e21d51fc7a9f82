/**
 * Reading a pipeline file with the size limit enforced from `stat`, so an oversized file is refused
 * before it is read into memory. The only module here that touches the filesystem.
 */
import { readFile, stat } from "node:fs/promises";
import type { Diagnostic } from "./errors.ts";
import { DEFAULT_LIMITS, type ParseLimits } from "./limits.ts";

export type LoadResult = { source: string; diagnostic?: undefined } | { source?: undefined; diagnostic: Diagnostic };

export async function readPipelineSource(
  path: string,
  limits: Partial<ParseLimits> = {},
  file = path,
): Promise<LoadResult> {
  const maxBytes = limits.maxBytes ?? DEFAULT_LIMITS.maxBytes;
  const at = { file, line: 1, col: 1, severity: "error" as const };
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch {
    return {
      diagnostic: {
        ...at,
        code: "shape",
        message: `Pipeline file '${file}' does not exist`,
        hint: "paths resolve against the current directory",
      },
    };
  }
  if (size > maxBytes) {
    return {
      diagnostic: {
        ...at,
        code: "too_large",
        message: `Pipeline file is ${size} bytes, over the ${maxBytes}-byte limit`,
        hint: "a pipeline is a short list of steps; keep data in parameter files",
      },
    };
  }
  return { source: await readFile(path, "utf8") };
}
