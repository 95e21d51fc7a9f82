/**
 * Running a turn's tool calls: concurrently, each result (or error text) back to the model in call
 * order, a tool_result event per call. A tool that ignores the signal still cannot hold a cancelled
 * run. In a no-tools step every call is answered with a refusal instead of being run.
 */
import type { ToolResultBlock, ToolUseBlock } from "../../llm/index.ts";
import { TOOL_PREVIEW_CHARS } from "../events.ts";
import { TOOLS_UNAVAILABLE } from "../prompts.ts";
import { type LoopRun, emit, pushUser } from "./state.ts";
import { abortable, throwIfCancelled } from "./stop.ts";

export async function answerToolCalls(run: LoopRun, calls: ToolUseBlock[], allowed: boolean): Promise<void> {
  const results = await Promise.all(
    calls.map(async (call): Promise<ToolResultBlock> => {
      const started = performance.now();
      const result = allowed
        ? await abortable(run.runCall(run.tools, call.name, call.input, run.signal), run.signal)
        : { isError: true, text: TOOLS_UNAVAILABLE };
      emit(run, {
        type: "tool_result",
        id: call.id,
        name: call.name,
        isError: result.isError ?? false,
        preview: result.text.slice(0, TOOL_PREVIEW_CHARS),
        chars: result.text.length,
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
      });
      return {
        type: "tool_result",
        toolUseId: call.id,
        content: result.text,
        ...(result.isError ? { isError: true } : {}),
      };
    }),
  );
  throwIfCancelled(run.signal);
  pushUser(run.state.messages, results);
}
