/**
 * The frame every source runs in: a staging directory beside the destination, the source's own
 * materialise step, a walk that decides whether there is anything to review, then one rename.
 * A failure anywhere removes the staging directory, so a failed ingest leaves nothing behind.
 */
import { mkdir, mkdtemp, readdir, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { MAX_REPORTED, walk, type WalkResult } from "../walker.ts";
import { describeCap, resolveLimits, type IngestLimits } from "./limits.ts";
import { ingestError, IngestError, quote } from "./errors.ts";
import { throttleProgress, type IngestProgress } from "./progress.ts";
import type {
  DroppedEntry,
  GitSnapshotInfo,
  IngestOptions,
  IngestSource,
  IngestSummary,
  LanguageStats,
} from "./types.ts";

export interface IngestContext {
  limits: IngestLimits;
  progress: (p: IngestProgress, force?: boolean) => void;
  signal?: AbortSignal;
  /** Running totals of what was written, enforcing the file-count and total-size caps. */
  tally: Tally;
  drop(path: string, reason: DroppedEntry["reason"]): void;
}

export interface Materialised {
  /** Promote the tree's single top-level folder, if it has exactly one entry and that is a folder. */
  stripSingleTopFolder?: boolean;
  git?: GitSnapshotInfo;
}

/** Counts files and bytes as they are written; throws the cap's refusal the moment one is passed. */
export class Tally {
  files = 0;
  bytes = 0;
  constructor(private readonly limits: IngestLimits) {}

  addFile(): void {
    if (++this.files > this.limits.maxFiles) {
      throw ingestError(
        "cap_files",
        `Too many files to ingest: more than ${describeCap(this.limits, "maxFiles")}. Leave out generated files or raise the cap.`,
      );
    }
  }

  addBytes(n: number): void {
    this.bytes += n;
    if (this.bytes > this.limits.maxTotalBytes) {
      throw ingestError(
        "cap_total_bytes",
        `Too much data to ingest: more than ${describeCap(this.limits, "maxTotalBytes")}. Leave out large data or raise the cap.`,
      );
    }
  }
}

export function fileTooLarge(limits: IngestLimits, rel: string): IngestError {
  return ingestError(
    "cap_file_bytes",
    `${quote(rel)} is too big: over ${describeCap(limits, "maxFileBytes")}. Leave it out or raise the cap.`,
  );
}

async function ensureAbsent(dest: string): Promise<void> {
  const exists = await stat(dest).then(
    () => true,
    () => false,
  );
  if (exists)
    throw ingestError(
      "destination_exists",
      `The snapshot directory ${dest} already exists; each ingest needs a new one.`,
      "conflict",
    );
}

/** The folder to promote: the tree itself, or its only entry when that is a folder (and stripping is on). */
async function promotedRoot(tree: string, strip: boolean): Promise<{ root: string; prefix?: string }> {
  if (!strip) return { root: tree };
  const entries = await readdir(tree, { withFileTypes: true });
  const only = entries[0];
  if (entries.length === 1 && only && only.isDirectory())
    return { root: path.join(tree, only.name), prefix: only.name };
  return { root: tree };
}

function languageStats(w: WalkResult): Record<string, LanguageStats> {
  const out: Record<string, LanguageStats> = {};
  for (const f of w.files) {
    const s = (out[f.language] ??= { files: 0, lines: 0, bytes: 0 });
    s.files++;
    s.lines += f.lines;
    s.bytes += f.size;
  }
  return out;
}

function nothingToReview(source: IngestSource, tally: Tally, droppedCount: number, w: WalkResult): IngestError {
  if (tally.files === 0) {
    if (droppedCount === 0)
      return ingestError(
        "empty",
        `The ${source === "zip" ? "archive" : source === "git" ? "repository" : "upload"} contains no files.`,
      );
    return ingestError(
      "empty",
      `Nothing to ingest: all ${droppedCount} entries are dependencies, build output, secrets or binary assets that Argus ignores (e.g. node_modules/, dist/, .env, images). Upload the source files.`,
    );
  }
  const c = w.skippedCounts;
  const skipped = Object.values(c).reduce((a, b) => a + (b ?? 0), 0);
  if ((c.binary ?? 0) === skipped && skipped > 0) {
    return ingestError(
      "no_text_files",
      `None of the ${skipped} files is text: they are all binary. Argus reviews source code; upload the sources instead.`,
    );
  }
  const parts = Object.entries(c).map(([reason, n]) => `${n} ${reason.replace("_", " ")}`);
  return ingestError(
    "no_text_files",
    `No file can be indexed (${parts.join(", ") || `${w.ignoredCount} ignored by .gitignore`}). Argus reviews source code; upload the sources.`,
  );
}

export async function runIngest(
  source: IngestSource,
  options: IngestOptions,
  materialise: (tree: string, ctx: IngestContext) => Promise<Materialised>,
): Promise<IngestSummary> {
  const limits = resolveLimits(options.limits);
  const dest = path.resolve(options.dest);
  await ensureAbsent(dest);
  await mkdir(path.dirname(dest), { recursive: true });
  // Beside the destination (same filesystem, so the final rename is atomic), hidden by the dot.
  const staging = await mkdtemp(path.join(path.dirname(dest), `.${path.basename(dest)}.partial-`));
  const tree = path.join(staging, "tree");
  const dropped: DroppedEntry[] = [];
  let droppedCount = 0;
  const ctx: IngestContext = {
    limits,
    progress: throttleProgress(options.onProgress),
    signal: options.signal,
    tally: new Tally(limits),
    drop(p, reason) {
      droppedCount++;
      if (dropped.length < MAX_REPORTED) dropped.push({ path: p, reason });
    },
  };
  try {
    await mkdir(tree);
    const m = await materialise(tree, ctx);
    options.signal?.throwIfAborted();
    const { root, prefix } = await promotedRoot(tree, m.stripSingleTopFolder ?? false);
    ctx.progress({ phase: "indexing", bytes: 0, files: 0 }, true);
    const w = await walk(root, {
      maxFiles: limits.maxFiles,
      maxFileBytes: limits.indexMaxFileBytes,
      signal: options.signal,
      onFile: (files, bytes) => ctx.progress({ phase: "indexing", bytes, files }),
    });
    if (w.files.length === 0) throw nothingToReview(source, ctx.tally, droppedCount, w);
    try {
      await rename(root, dest);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "EEXIST" || code === "ENOTEMPTY") await ensureAbsent(dest);
      throw err;
    }
    ctx.progress({ phase: "done", bytes: ctx.tally.bytes, files: w.files.length }, true);
    return {
      source,
      dest,
      writtenFiles: ctx.tally.files,
      writtenBytes: ctx.tally.bytes,
      dropped,
      droppedCount,
      ...(prefix !== undefined && { strippedPrefix: prefix }),
      walk: w,
      languages: languageStats(w),
      ...(m.git && { git: m.git }),
    };
  } catch (err) {
    if (options.signal?.aborted && !(err instanceof IngestError)) {
      throw ingestError("aborted", "The ingest was cancelled; nothing was kept.");
    }
    throw err;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
