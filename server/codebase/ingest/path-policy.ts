/**
 * Which server folders a user may import. Reading the server's own disk is opt-in: the operator
 * lists the folders that may be imported (IMPORT_PATH_ROOTS), and a path is allowed only when its
 * real path (every symlink resolved) lies inside one of the roots' real paths. Argus's own data
 * (DATA_DIR: the database, the auth secret, every workspace's snapshots) is never importable — not
 * itself, nothing inside it, and no folder that contains it.
 *
 * A path outside every root is refused before the disk is touched, so the refusal says nothing about
 * what exists there.
 */
import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import { ingestError, quote } from "./errors.ts";

export interface ImportPathPolicy {
  /** Folders whose contents may be imported; empty: server-folder import is off. */
  roots: readonly string[];
  /** Folders never imported, nor anything inside or around them (DATA_DIR). */
  protectedDirs: readonly string[];
}

/** True when `child` is `parent` or lies inside it (by path segments: /srv/code-x is not in /srv/code). */
export function isWithin(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

const realOrSelf = (p: string) => realpath(p).catch(() => path.resolve(p));

export const serverImportOff = () =>
  ingestError(
    "path_not_allowed",
    "Importing a folder from the server is turned off. The operator can turn it on by listing the folders that may be imported in IMPORT_PATH_ROOTS (e.g. IMPORT_PATH_ROOTS=/srv/code) and restarting Argus; until then, upload the code or import it from git.",
  );

/** Resolves a user's server path to the real folder it names, or refuses it with a message saying what to do. */
export async function resolveImportPath(input: string, policy: ImportPathPolicy): Promise<string> {
  if (policy.roots.length === 0) throw serverImportOff();
  if (!path.isAbsolute(input))
    throw ingestError(
      "source_not_found",
      `Give an absolute path on the server (starting with /), not ${quote(input)}.`,
    );
  const outside = () =>
    ingestError(
      "path_not_allowed",
      `${quote(input)} is outside the folders the operator allows for import (IMPORT_PATH_ROOTS: ${policy.roots.join(path.delimiter)}). Pick a folder inside one of them, or ask the operator to add it.`,
    );
  const lexical = path.resolve(input);
  const roots = await Promise.all(policy.roots.map(realOrSelf));
  // Outside every root as written (or as its real path): refused before the path itself is looked at.
  if (!roots.some((r) => isWithin(r, lexical)) && !policy.roots.some((r) => isWithin(path.resolve(r), lexical)))
    throw outside();

  let real: string;
  try {
    real = await realpath(lexical);
  } catch {
    throw ingestError(
      "source_not_found",
      `There is no folder at ${quote(input)} on the server (or Argus may not read it).`,
    );
  }
  // A symlink inside a root may point anywhere: the real path decides.
  if (!roots.some((r) => isWithin(r, real))) throw outside();
  for (const dir of await Promise.all(policy.protectedDirs.map(realOrSelf))) {
    if (isWithin(dir, real) || isWithin(real, dir))
      throw ingestError(
        "path_not_allowed",
        `${quote(input)} is, or contains, Argus's own data folder (DATA_DIR), which is never imported. Pick the project's own folder.`,
      );
  }
  if (!(await stat(real)).isDirectory())
    throw ingestError("source_not_found", `${quote(input)} is a file; give the project's folder.`);
  return real;
}
