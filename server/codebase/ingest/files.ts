/**
 * Uploaded files — one, many, or a whole folder from the browser's directory picker — written into a
 * snapshot with their relative paths kept. Each path is validated (no "..", not absolute, no NUL).
 *
 * Files arrive as a (possibly async) sequence so a multipart parser can hand them over one at a time;
 * each content is streamed to disk, never held whole. DEFAULT_IGNORES apply as files arrive (an
 * uploaded node_modules/ is read and discarded, never written); the project's .gitignore files can
 * come in any order, so they are applied when the snapshot is read (walker, agent tools), not here.
 */
import { createIgnoreMatcher } from "../filters.ts";
import { safeRelativePath, inside } from "./paths.ts";
import { fileTooLarge, runIngest } from "./run.ts";
import type { IngestOptions, IngestSummary } from "./types.ts";
import { drain, writeCapped, type Content } from "./write.ts";

export interface UploadedFile {
  /** Path inside the project: "src/app.ts" (a browser folder upload sends webkitRelativePath). */
  relativePath: string;
  /** The bytes: a stream (Node Readable, web ReadableStream, any async iterable) or a buffer. */
  content: Content;
}

export interface FilesIngestOptions extends IngestOptions {
  files: Iterable<UploadedFile> | AsyncIterable<UploadedFile>;
  /** Remove a top-level folder every path shares ("my-app/src/…" → "src/…"). Default false. */
  stripSingleTopFolder?: boolean;
}

export function ingestFiles(options: FilesIngestOptions): Promise<IngestSummary> {
  return ingestUploads("files", options);
}

/** Shared by files and folder uploads; only the source label and the top-folder rule differ. */
export function ingestUploads(source: "files" | "folder", options: FilesIngestOptions): Promise<IngestSummary> {
  return runIngest(source, options, async (tree, ctx) => {
    const matcher = createIgnoreMatcher({ gitignore: false });
    for await (const file of options.files) {
      ctx.signal?.throwIfAborted();
      const rel = safeRelativePath(file.relativePath, "uploaded file path");
      if (matcher.ignores(rel)) {
        ctx.drop(rel, "ignored");
        await drain(file.content);
        continue;
      }
      ctx.tally.addFile();
      await writeCapped(inside(tree, rel), rel, file.content, {
        maxBytes: ctx.limits.maxFileBytes,
        tooLarge: () => fileTooLarge(ctx.limits, rel),
        onBytes: (n) => {
          ctx.tally.addBytes(n);
          ctx.progress({ phase: "receiving", bytes: ctx.tally.bytes, files: ctx.tally.files });
        },
      });
    }
    return { stripSingleTopFolder: options.stripSingleTopFolder ?? false };
  });
}
