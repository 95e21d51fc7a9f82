/**
 * The contract every review tool implements. A tool validates its own arguments with zod, reads the
 * snapshot only through the Sandbox, and returns plain text bounded in size. A bad call (invalid
 * arguments, a path outside the snapshot, a missing file) is not an exception: `run` resolves with
 * `{ isError: true, text }` explaining what was wrong and what to do, and the loop sends it to the model.
 */
import type { z } from "zod";
import type { StaticInput } from "../static-findings.ts";

export interface ToolResult {
  text: string;
  isError?: boolean;
}

export interface ReviewTool<S extends z.ZodType = z.ZodType> {
  name: string;
  /** Shown to the model: what the tool does, when to use it, what it returns. */
  description: string;
  input: S;
  run(args: z.infer<S>, signal?: AbortSignal): Promise<ToolResult>;
}

/** Everything a tool may consult about one snapshot. Built once per review (tools/index.ts). */
export interface ToolContext {
  /** Absolute path of the snapshot's src/ directory. */
  root: string;
  /** The snapshot's symbol index (server/codebase/symbols), if built. */
  symbolsPath?: string;
  /** Static findings of the snapshot (from the database). */
  staticFindings: () => Promise<StaticInput[]>;
  /** Code search over the snapshot's index; undefined when the snapshot has none. */
  searchCode?: (
    query: string,
    opts: { mode?: "hybrid" | "fulltext" | "vector"; k?: number; pathGlob?: string; language?: string },
  ) => Promise<
    {
      file: string;
      startLine: number;
      endLine: number;
      snippet: string;
      snippetStartLine: number;
      score: number;
      symbolPath?: string;
    }[]
  >;
  /** The git repository of the snapshot, if it came from git (for get_diff / get_git_log). */
  gitDir?: string;
}
