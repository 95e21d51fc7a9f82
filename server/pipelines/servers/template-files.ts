/**
 * Reading prompt template files for the prompt server. A template path comes from a parameter file
 * (user-editable, and from the web app possibly another user's), so it is confined to the run's
 * directory: upstream refuses paths containing `..`; Argus also refuses absolute paths and symlinks
 * that lead outside it (run-files.ts, in web-app runs). Compiled templates are cached per file and
 * modification time.
 */
import { stat, readFile } from "node:fs/promises";
import type { CallContext } from "./contract.ts";
import { ToolError } from "./define.ts";
import { runFiles } from "./run-files.ts";
import { compileTemplate, MAX_TEMPLATE_CHARS } from "./jinja.ts";

type Compiled = ReturnType<typeof compileTemplate>;

const cache = new Map<string, { mtimeMs: number; size: number; program: Compiled }>();
const CACHE_LIMIT = 256;

/** The compiled template at `template` (relative to the run's folder), or a ToolError saying what is wrong. */
export async function loadTemplate(
  ctx: Pick<CallContext, "cwd" | "fileAccess">,
  template: unknown,
  tool: string,
): Promise<Compiled> {
  if (typeof template !== "string" || template.trim() === "")
    throw new ToolError(
      `${tool}: the template parameter must be a path such as prompt/qa_boxed.jinja, got ${JSON.stringify(template)}`,
    );
  if (template.split(/[\\/]/).includes(".."))
    throw new ToolError(
      `${tool}: template path '${template}' must not contain '..' (templates live under the run's directory)`,
    );
  const real = runFiles(ctx).read(template, "template", tool);
  const info = await stat(real);
  if (!info.isFile()) throw new ToolError(`${tool}: template '${template}' is not a file`);
  if (info.size > MAX_TEMPLATE_CHARS * 4)
    throw new ToolError(`${tool}: template '${template}' is ${info.size} bytes; templates are limited to 1 MB of text`);
  const hit = cache.get(real);
  if (hit && hit.mtimeMs === info.mtimeMs && hit.size === info.size) return hit.program;
  const source = await readFile(real, "utf8");
  let program: Compiled;
  try {
    program = compileTemplate(source, template);
  } catch (err) {
    throw new ToolError(`${tool}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(real, { mtimeMs: info.mtimeMs, size: info.size, program });
  return program;
}
