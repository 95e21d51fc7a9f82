/**
 * Paths a pipeline's parameters name, confined to the run's directory (the pipeline's root): a
 * parameter file may come from another user (the web app), so `../` or an absolute path, or a
 * symlink inside the directory, must not reach the rest of the disk.
 */
import { realpath } from "node:fs/promises";
import path from "node:path";
import { describe, ToolError } from "./define.ts";

/** The real path of an existing file or folder `p` (relative to `root`), or a ToolError naming the parameter. */
export async function existingInside(root: string, p: unknown, name: string, tool: string): Promise<string> {
  if (typeof p !== "string" || p.trim() === "")
    throw new ToolError(`${tool}: ${name} must be a path, got ${describe(p)}`);
  const rootReal = await realpath(root);
  const real = await realpath(path.resolve(rootReal, p)).catch(() => null);
  if (!real)
    throw new ToolError(
      `${tool}: ${name} '${p}' does not exist (paths resolve against the directory the pipeline runs in)`,
    );
  if (real !== rootReal && !real.startsWith(rootReal + path.sep))
    throw new ToolError(`${tool}: ${name} '${p}' is outside the directory the pipeline runs in; use a path inside it`);
  return real;
}
