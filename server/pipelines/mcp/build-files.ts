/**
 * The `build` tool of a server served by `argus mcp serve`, as UltraRAG's servers have it (spec §3.1):
 * `build(parameter_file)` writes `<dir(parameter_file)>/server.yaml` — `path`, `parameter`, `tools`,
 * `prompts` — so UltraRAG's `ultrarag build` (and Argus's MCP client) can consume the server. Unlike
 * UltraRAG's it also writes the parameter file: the server's defaults, keeping every value already in
 * the file (a user's edits win).
 *
 * The path comes from a remote client, so it is confined: it must be a `.yaml`/`.yml` file inside the
 * served directory or the system temp directory, and nothing else is written. Both files are
 * refused if they are symlinks and are replaced by rename, never written through: in a shared temp
 * directory another user could otherwise point `server.yaml` at one of our files.
 */
import { existsSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { lstat, mkdir, realpath, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { stringify as stringifyYaml } from "yaml";
import { readParameterFile } from "../registry.ts";
import type { ServerSignature } from "../dsl/schema.ts";

export class BuildRefused extends Error {}

export interface BuildOptions {
  /** The directory relative paths resolve against and writes are allowed under. */
  cwd: string;
  /** What `path:` says when the parameter file has none: how to reach this server. */
  advertisedPath: string;
}

export interface BuildOutput {
  server_yaml: string;
  parameter_file: string;
}

async function within(dir: string, roots: string[]): Promise<boolean> {
  const real = await realpath(dir);
  for (const root of roots) {
    const r = await realpath(root).catch(() => undefined);
    if (r && (real === r || real.startsWith(r + path.sep))) return true;
  }
  return false;
}

async function refuseSymlink(file: string, shown: string): Promise<void> {
  const info = await lstat(file).catch(() => null);
  if (info?.isSymbolicLink())
    throw new BuildRefused(`build: \`${shown}\` is a symbolic link; give the path of a regular file`);
}

/** Writes a new file beside the target (O_EXCL) and renames it over the target. */
async function replaceFile(file: string, content: string): Promise<void> {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    await writeFile(temp, content, { flag: "wx" });
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

export async function writeBuildFiles(
  signature: ServerSignature,
  parameterFile: unknown,
  options: BuildOptions,
): Promise<BuildOutput> {
  if (typeof parameterFile !== "string" || parameterFile.trim() === "")
    throw new BuildRefused(
      "build needs `parameter_file`, the path of the server's parameter.yaml (e.g. servers/retriever/parameter.yaml)",
    );
  if (!/\.ya?ml$/i.test(parameterFile)) throw new BuildRefused(`build: \`${parameterFile}\` is not a .yaml file`);
  const file = path.resolve(options.cwd, parameterFile);
  const dir = path.dirname(file);
  // Check the nearest existing ancestor before creating anything, then the directory itself.
  let ancestor = dir;
  while (!existsSync(ancestor)) ancestor = path.dirname(ancestor);
  const roots = [options.cwd, os.tmpdir()];
  const refused = () =>
    new BuildRefused(
      `build: \`${parameterFile}\` is outside the directory this server was started in (${options.cwd}); pass a path inside it`,
    );
  if (!(await within(ancestor, roots))) throw refused();
  await mkdir(dir, { recursive: true });
  if (!(await within(dir, roots))) throw refused();

  const serverYaml = path.join(dir, "server.yaml");
  await refuseSymlink(file, parameterFile);
  await refuseSymlink(serverYaml, path.join(path.dirname(parameterFile), "server.yaml"));

  let existing: Record<string, unknown> = {};
  if (existsSync(file)) {
    // The registry's reader: the same size cap, alias limit and messages as a pipeline run.
    try {
      existing = readParameterFile(file);
    } catch (err) {
      // Named as the client gave it, not by this machine's absolute path.
      throw new BuildRefused(
        `build: ${(err instanceof Error ? err.message : String(err)).replace(file, `\`${parameterFile}\``)}`,
      );
    }
  }
  const parameters = { ...structuredClone(signature.parameters), ...existing };
  if (!existsSync(file) || Object.keys(parameters).length !== Object.keys(existing).length)
    await replaceFile(file, stringifyYaml(parameters));

  const doc = {
    path: typeof existing.path === "string" ? existing.path : options.advertisedPath,
    parameter: parameterFile,
    tools: signature.tools,
    prompts: signature.prompts,
  };
  await replaceFile(serverYaml, stringifyYaml(doc));
  return { server_yaml: serverYaml, parameter_file: file };
}
