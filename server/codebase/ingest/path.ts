/**
 * A folder on the server's own disk, copied into a snapshot. Who may do this (the owner) is the
 * caller's check; which folders, the `policy` (path-policy.ts: the operator's IMPORT_PATH_ROOTS, never
 * DATA_DIR) when the path comes from a user. This module makes the copy safe: the same ignore rules and caps as uploads, no
 * symlink followed (each is reported as dropped, whether it points inside or out), no FIFO or device
 * opened, files opened with O_NOFOLLOW so a file swapped for a link mid-copy is not read through.
 */
import { open, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { createIgnoreMatcher } from "../filters.ts";
import { SAFE_OPEN_FLAGS, traverse } from "../walker.ts";
import { ingestError, quote } from "./errors.ts";
import { inside } from "./paths.ts";
import { isWithin, resolveImportPath, type ImportPathPolicy } from "./path-policy.ts";
import { fileTooLarge, runIngest, type IngestContext } from "./run.ts";
import type { IngestOptions, IngestSummary } from "./types.ts";
import { writeCapped } from "./write.ts";

export interface PathIngestOptions extends IngestOptions {
  /** Absolute path of a folder on the server. */
  sourcePath: string;
  /** For a path a user gave: the folders it must lie in. Omitted (the CLI, the demo): any folder. */
  policy?: ImportPathPolicy;
}

async function resolveSource(sourcePath: string, dest: string, policy?: ImportPathPolicy): Promise<string> {
  const real = policy ? await resolveImportPath(sourcePath, policy) : await resolveAnyFolder(sourcePath);
  // The staging directory sits beside dest; inside the source, the copy would copy itself.
  const destParent = await realpath(path.dirname(path.resolve(dest)));
  if (isWithin(real, destParent)) {
    throw ingestError(
      "unsafe_path",
      `Argus keeps its snapshots inside ${quote(sourcePath)}, so that folder can't be ingested; pick the project's own folder.`,
    );
  }
  return real;
}

async function resolveAnyFolder(sourcePath: string): Promise<string> {
  if (!path.isAbsolute(sourcePath))
    throw ingestError("source_not_found", `Give an absolute path on the server, not ${quote(sourcePath)}.`);
  let real: string;
  try {
    real = await realpath(sourcePath);
  } catch {
    throw ingestError(
      "source_not_found",
      `There is no folder at ${quote(sourcePath)} on the server (or Argus may not read it).`,
    );
  }
  if (!(await stat(real)).isDirectory())
    throw ingestError("source_not_found", `${quote(sourcePath)} is a file; give the project's folder.`);
  return real;
}

/** Copies one regular file; returns a drop reason instead when it turned out not to be one. */
async function copyOne(
  abs: string,
  rel: string,
  tree: string,
  ctx: IngestContext,
): Promise<"symlink" | "special" | "unreadable" | undefined> {
  let fh;
  try {
    fh = await open(abs, SAFE_OPEN_FLAGS);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ELOOP" ? "symlink" : "unreadable";
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) return "special";
    if (st.size > ctx.limits.maxFileBytes) throw fileTooLarge(ctx.limits, rel);
    ctx.tally.addFile();
    await writeCapped(inside(tree, rel), rel, () => fh.createReadStream({ start: 0, autoClose: false }), {
      maxBytes: ctx.limits.maxFileBytes,
      tooLarge: () => fileTooLarge(ctx.limits, rel),
      onBytes: (n) => {
        ctx.tally.addBytes(n);
        ctx.progress({ phase: "copying", bytes: ctx.tally.bytes, files: ctx.tally.files });
      },
    });
    return undefined;
  } finally {
    await fh.close();
  }
}

export function ingestPath(options: PathIngestOptions): Promise<IngestSummary> {
  return runIngest("path", options, async (tree, ctx) => {
    const root = await resolveSource(options.sourcePath, options.dest, options.policy);
    const matcher = createIgnoreMatcher({ root });
    for await (const entry of traverse(root, matcher, ctx.signal)) {
      if (entry.kind === "ignored") ctx.drop(entry.path, "ignored");
      else if (entry.kind === "skip") ctx.drop(entry.path, entry.reason);
      else {
        const dropped = await copyOne(entry.abs, entry.path, tree, ctx);
        if (dropped) ctx.drop(entry.path, dropped);
      }
    }
    return {};
  });
}
