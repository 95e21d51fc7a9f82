/**
 * The loop's seam for running a model's tool call. The one implementation is server/agent/tools'
 * runToolCall (unknown tools, invalid or non-JSON arguments and failing tools all become error text
 * for the model; only cancellation throws); tests may pass their own with the same signature.
 */
import type { ReviewTool, ToolResult } from "./tools/types.ts";

export { runToolCall, toolDefinitions } from "./tools/run.ts";
export { MAX_TOOL_RESULT_CHARS } from "./tools/limits.ts";

export type RunToolCall = (
  tools: readonly ReviewTool[],
  name: string,
  input: unknown,
  signal?: AbortSignal,
) => Promise<ToolResult>;
