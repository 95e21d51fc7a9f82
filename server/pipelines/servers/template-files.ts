/**
 * Reading prompt template files for the prompt server. A template path comes from a parameter file
 * (user-editable, and from the web app possibly another user's), so it is confined to the run's
 * directory: upstream refuses paths containing `..`; Argus also refuses absolute paths and symlinks
 * that lead outside it. Compiled templates are cached per file and modification time.
 */
import { realpath, stat, readFile } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "./define.ts";
import { compileTemplate, MAX_TEMPLATE_CHARS } from "./jinja.ts";

type Compiled = ReturnType<typeof compileTemplate>;

const cache = new Map<string, { mtimeMs: number; size: number; program: Compiled }>();
const CACHE_LIMIT = 256;

/** The compiled template at `template` (relative to `root`), or a ToolError saying what is wrong. */
export async function loadTemplate(root: string, template: unknown, tool: string): Promise<Compiled> {
  if (typeof template !== "string" || template.trim() === "")
    throw new ToolError(
      `${tool}: the template parameter must be a path such as prompt/qa_boxed.jinja, got ${JSON.stringify(template)}`,
    );
  if (template.split(/[\\/]/).includes(".."))
    throw new ToolError(
      `${tool}: template path '${template}' must not contain '..' (templates live under the run's directory)`,
    );
  const rootReal = await realpath(root);
  const file = path.resolve(rootReal, template);
  const inside = (p: string) => p === rootReal || p.startsWith(rootReal + path.sep);
  if (!inside(file))
    throw new ToolError(
      `${tool}: template path '${template}' is outside the run's directory; use a path relative to it`,
    );
  const real = await realpath(file).catch(() => null);
  if (!real)
    throw new ToolError(
      `${tool}: template '${template}' does not exist (paths resolve against the directory the pipeline runs in)`,
    );
  if (!inside(real))
    throw new ToolError(`${tool}: template '${template}' links outside the run's directory; copy the file in instead`);
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
