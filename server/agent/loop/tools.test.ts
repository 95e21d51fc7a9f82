/** answerToolCalls on its own: no model request is needed, the calls are given as the model sends them. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ToolUseBlock } from "../../llm/index.ts";
import type { ReviewTool } from "../tools/types.ts";
import { TOOL_PREVIEW_CHARS } from "../events.ts";
import { TOOLS_UNAVAILABLE } from "../prompts.ts";
import { ofType, useScriptedRuns } from "./test-support.ts";
import { answerToolCalls } from "./tools.ts";

const llm = useScriptedRuns();

const call = (id: string, name: string, input: Record<string, unknown> = {}): ToolUseBlock => ({
  type: "tool_use",
  id,
  name,
  input,
});

/** Two tools that can only both finish when they run at the same time: `first` waits for `second`. */
function rendezvous(): ReviewTool[] {
  let secondStarted!: () => void;
  const started = new Promise<void>((resolve) => (secondStarted = resolve));
  const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error("ran one at a time")), 2000));
  return [
    {
      name: "first",
      description: "waits for second",
      input: z.object({}),
      run: async () => (await Promise.race([started, timeout]), { text: "first done" }),
    },
    {
      name: "second",
      description: "starts",
      input: z.object({}),
      run: async () => (secondStarted(), { text: "x".repeat(2000) }),
    },
  ] as ReviewTool[];
}

describe("answerToolCalls", () => {
  it("runs the calls concurrently and sends the results back in call order, merged into one user turn", async () => {
    const { run, events } = llm.start([], { tools: rendezvous() });
    await answerToolCalls(run, [call("a", "first"), call("b", "second")], true);

    expect(run.state.messages).toHaveLength(1); // merged into the trailing user turn (the first message)
    expect(run.state.messages[0]!.content.slice(1)).toEqual([
      { type: "tool_result", toolUseId: "a", content: "first done" },
      { type: "tool_result", toolUseId: "b", content: "x".repeat(2000) },
    ]);
    const results = ofType(events, "tool_result");
    expect(results.map((e) => e.id).sort()).toEqual(["a", "b"]);
    const second = results.find((e) => e.id === "b")!;
    expect(second).toMatchObject({ name: "second", isError: false, chars: 2000 });
    expect(second.preview).toHaveLength(TOOL_PREVIEW_CHARS);
    expect(second.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("passes a tool's error text to the model as an error result", async () => {
    const { run, events } = llm.start([]);
    await answerToolCalls(run, [call("c", "read_file", { path: "nope.ts" })], true);
    expect(run.state.messages[0]!.content[1]).toEqual({
      type: "tool_result",
      toolUseId: "c",
      content: "No such file: nope.ts. Use list_dir to see the files.",
      isError: true,
    });
    expect(ofType(events, "tool_result")[0]).toMatchObject({ isError: true });
  });

  it("runs nothing in a step without tools and answers every call with the refusal", async () => {
    let ran = 0;
    const counted: ReviewTool = {
      name: "counted",
      description: "counts runs",
      input: z.object({}),
      run: async () => (ran++, { text: "ran" }),
    };
    const { run } = llm.start([], { tools: [counted] });
    await answerToolCalls(run, [call("d", "counted"), call("e", "counted")], false);
    expect(ran).toBe(0);
    expect(run.state.messages[0]!.content.slice(1)).toEqual([
      { type: "tool_result", toolUseId: "d", content: TOOLS_UNAVAILABLE, isError: true },
      { type: "tool_result", toolUseId: "e", content: TOOLS_UNAVAILABLE, isError: true },
    ]);
  });

  it("gives up on a tool that ignores the signal as soon as the run is cancelled, appending nothing", async () => {
    const controller = new AbortController();
    const hang: ReviewTool = {
      name: "hang",
      description: "never returns",
      input: z.object({}),
      run: () => new Promise(() => {}),
    };
    const { run } = llm.start([], { tools: [hang], signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const started = Date.now();
    await expect(answerToolCalls(run, [call("f", "hang")], true)).rejects.toMatchObject({ reason: "cancelled" });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(run.state.messages[0]!.content).toHaveLength(1);
  });

  it("appends nothing once the run is cancelled, even for refusals", async () => {
    const controller = new AbortController();
    const { run } = llm.start([], { signal: controller.signal });
    controller.abort();
    await expect(answerToolCalls(run, [call("h", "read_file")], false)).rejects.toMatchObject({ reason: "cancelled" });
    expect(run.state.messages[0]!.content).toHaveLength(1);
  });

  it("uses the run's runToolCall seam when one is given", async () => {
    const seen: unknown[] = [];
    const { run } = llm.start([], {
      runToolCall: async (_tools, name, input) => (seen.push([name, input]), { text: `custom ${name}` }),
    });
    await answerToolCalls(run, [call("g", "anything", { q: 1 })], true);
    expect(seen).toEqual([["anything", { q: 1 }]]);
    expect(run.state.messages[0]!.content[1]).toMatchObject({ content: "custom anything" });
  });
});
