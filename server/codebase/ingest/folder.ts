/**
 * A folder picked in the browser (<input webkitdirectory>): many files whose webkitRelativePath all
 * start with the picked folder's name. The same code as files.ts; the only difference is that the
 * picked folder's name is not part of the project's paths.
 */
import { ingestUploads, type FilesIngestOptions } from "./files.ts";
import type { IngestSummary } from "./types.ts";

export type FolderIngestOptions = Omit<FilesIngestOptions, "stripSingleTopFolder">;

export function ingestFolder(options: FolderIngestOptions): Promise<IngestSummary> {
  return ingestUploads("folder", { ...options, stripSingleTopFolder: true });
}
