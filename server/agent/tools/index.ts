/**
 * The review agent's tools: build the set for one snapshot (createReviewTools), describe them to the
 * model (toolDefinitions) and run a call (runToolCall). Every tool reaches files only through the
 * Sandbox built here from ctx.root.
 */
import { Sandbox } from "../sandbox.ts";
import { fileSummaryTool, staticAnalysisTool } from "./analysis.ts";
import { ToolEnv } from "./env.ts";
import { listDirTool, readFileTool } from "./files.ts";
import { getDiffTool, getGitLogTool } from "./git.ts";
import { grepTool } from "./grep.ts";
import { searchCodeTool } from "./search-code.ts";
import { findDefinitionTool, findModuleTool, findReferencesTool, listSymbolsTool } from "./symbols.ts";
import type { ReviewTool, ToolContext } from "./types.ts";

export { runToolCall, describeFields, toolDefinitions } from "./run.ts";
export type { ReviewTool, ToolContext, ToolResult } from "./types.ts";
export * from "./limits.ts";

export const TOOL_NAMES = [
  "list_dir",
  "read_file",
  "grep",
  "list_symbols",
  "find_definition",
  "find_references",
  "find_module",
  "get_file_summary",
  "get_static_analysis",
  "get_diff",
  "get_git_log",
  "search_code",
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

export interface ReviewToolOptions {
  /** Reuse a Sandbox (e.g. one shared with the page); default: a new one on ctx.root. */
  sandbox?: Sandbox;
  /** Only these tools (e.g. a verification turn without git); default all. */
  only?: readonly ToolName[];
}

/** A tool set that also owns resources (the symbol index handle); close() when the review ends. */
export type ReviewToolSet = ReviewTool[] & { close(): void };

export function createReviewTools(ctx: ToolContext, opts: ReviewToolOptions = {}): ReviewToolSet {
  const env = new ToolEnv(ctx, opts.sandbox);
  const all: ReviewTool[] = [
    listDirTool(env),
    readFileTool(env),
    grepTool(env),
    listSymbolsTool(env),
    findDefinitionTool(env),
    findReferencesTool(env),
    findModuleTool(env),
    fileSummaryTool(env),
    staticAnalysisTool(env),
    getDiffTool(env),
    getGitLogTool(env),
    searchCodeTool(env),
  ];
  const chosen = opts.only ? all.filter((t) => opts.only!.includes(t.name as ToolName)) : all;
  // The index closes itself after a quiet minute; close() releases it at once.
  return Object.assign(chosen, { close: () => env.close() });
}

/** The tools as the LLM layer describes them to a model (JSON Schema of each tool's input). */
