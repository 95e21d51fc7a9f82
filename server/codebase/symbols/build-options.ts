/** What a symbol-index build is asked to do (build.ts), read by its plan and outline steps too. */
import type { SourceFile } from "./types.ts";

export interface BuildOptions {
  /** Snapshot root (absolute). */
  root: string;
  files: SourceFile[];
  /** Where the index goes (e.g. <snapshot index dir>/symbols.sqlite); replaced atomically. */
  indexPath: string;
  /** Worker threads besides the main thread; "auto" = cores − 1 when the tree is big enough. */
  workers?: number | "auto";
  /** Let the main thread process files too (default true); false keeps the event loop free. */
  mainThread?: boolean;
  /** Run Argus's static rules in the same pass (default true). */
  rules?: boolean;
  /** The taint engine with the rules (default true); false runs the old rules only. */
  taint?: boolean;
  /** Per-file budget of the taint analysis (ms); a file over it ends its analysis with a note. */
  taintBudgetMs?: number;
  maxParseBytes?: number;
  parseTimeoutMs?: number;
  /** Use universal-ctags for files without a grammar when it is on PATH (default true). */
  ctags?: boolean;
  onProgress?: (progress: { done: number; total: number; path: string }) => void;
  signal?: AbortSignal;
}
