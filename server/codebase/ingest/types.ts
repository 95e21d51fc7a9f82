/** What every ingest source takes and returns. */
import type { WalkResult } from "../walker.ts";
import type { IngestLimitsInput } from "./limits.ts";
import type { ProgressFn } from "./progress.ts";

export type IngestSource = "zip" | "files" | "folder" | "git" | "path";

export interface IngestOptions {
  /** The snapshot directory to create. It must not exist; its parent is created when missing. */
  dest: string;
  limits?: IngestLimitsInput;
  onProgress?: ProgressFn;
  /** Aborting stops the ingest (git is killed) and removes everything written. */
  signal?: AbortSignal;
}

/** Something in the source that was deliberately not written into the snapshot. */
export interface DroppedEntry {
  path: string;
  /**
   * ignored: matched DEFAULT_IGNORES (or a .gitignore, for archives and local paths); symlink: never
   * materialised; special: FIFO/device; submodule: git submodules are not fetched.
   */
  reason: "ignored" | "symlink" | "special" | "unreadable" | "submodule";
}

export interface GitSnapshotInfo {
  /** The URL without credentials. */
  url: string;
  commit: string;
  branch?: string;
  tag?: string;
  depth: number;
}

export interface LanguageStats {
  files: number;
  lines: number;
  bytes: number;
}

export interface IngestSummary {
  source: IngestSource;
  /** Absolute path of the snapshot directory now holding the files. */
  dest: string;
  /** Files and bytes written into the snapshot, text or not. */
  writtenFiles: number;
  writtenBytes: number;
  /** Not written: the first MAX_REPORTED entries, and the full count. */
  dropped: DroppedEntry[];
  droppedCount: number;
  /** The single top-level folder removed from every path ("repo-main"), when there was one. */
  strippedPrefix?: string;
  /** The indexable view of the snapshot (what the symbol index and the agent see). */
  walk: WalkResult;
  languages: Record<string, LanguageStats>;
  git?: GitSnapshotInfo;
}
