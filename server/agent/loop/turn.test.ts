/** modelTurn and noToolsTurn on their own, over the scripted Anthropic wire format. */
import { describe, expect, it } from "vitest";
import { createBudget } from "../../llm/index.ts";
import { TOOLS_UNAVAILABLE } from "../prompts.ts";
import { Stop } from "./stop.ts";
import { ofType, useScriptedRuns } from "./test-support.ts";
import { modelTurn, noToolsTurn } from "./turn.ts";

const llm = useScriptedRuns();

describe("modelTurn", () => {
  it("streams one request, emits tokens, tool calls and running usage, and appends the assistant turn", async () => {
    const { run, events, sent } = llm.start([
      {
        text: "Let me look.",
        toolCalls: [{ name: "list_dir", input: { path: "." } }],
        usage: { input: 40, output: 7 },
      },
    ]);
    const turn = await modelTurn(run, "exploring", true);

    expect(turn).toEqual({
      text: "Let me look.",
      calls: [{ type: "tool_use", id: expect.any(String), name: "list_dir", input: { path: "." } }],
      stopReason: "tool_use",
    });
    expect(run.state.lastTurn).toBe(turn);
    expect(run.state).toMatchObject({ iterations: 1, requests: 1, usage: { inputTokens: 40, outputTokens: 7 } });
    expect(run.state.costUsd).toBeGreaterThan(0);
    expect(run.state.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(run.state.messages[1]!.content).toContainEqual({ type: "text", text: "Let me look." });
    expect(
      ofType(events, "token")
        .map((e) => e.text)
        .join(""),
    ).toBe("Let me look.");
    expect(ofType(events, "token").every((e) => e.phase === "exploring")).toBe(true);
    expect(ofType(events, "tool_call")).toEqual([
      { type: "tool_call", id: turn.calls[0]!.id, name: "list_dir", input: { path: "." }, iteration: 1 },
    ]);
    expect(ofType(events, "usage")).toEqual([
      {
        type: "usage",
        usage: { inputTokens: 40, outputTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 0 },
        costUsd: run.state.costUsd,
        requests: 1,
      },
    ]);
    // Tools offered, the model's own reasoning effort.
    expect(sent[0]).toMatchObject({ system: "You review code.", toolChoice: "auto" });
    expect(sent[0]!.tools?.map((t) => t.name)).toEqual(["read_file", "list_dir"]);
    expect(sent[0]!.reasoningEffort).toBeUndefined();
  });

  it("adds the usage of successive turns up and reports a cut-off answer as max_tokens", async () => {
    const { run, events } = llm.start([
      { match: "Review scope", text: "First.", usage: { input: 10, output: 2 } },
      { match: "go on", text: "Second and", stopReason: "max_tokens", usage: { input: 20, output: 3 } },
    ]);
    await modelTurn(run, "exploring", true);
    run.state.messages.push({ role: "user", content: [{ type: "text", text: "go on" }] });
    const second = await modelTurn(run, "exploring", true);
    expect(second.stopReason).toBe("max_tokens");
    expect(run.state.usage).toMatchObject({ inputTokens: 30, outputTokens: 5 });
    expect(ofType(events, "usage").map((e) => e.requests)).toEqual([1, 2]);
  });

  it("keeps an empty answer sendable with a placeholder", async () => {
    const { run } = llm.start([{ text: [] }]);
    const turn = await modelTurn(run, "exploring", true);
    expect(turn.text).toBe("");
    expect(run.state.messages.at(-1)).toEqual({ role: "assistant", content: [{ type: "text", text: "(no answer)" }] });
  });

  it("asks for minimal reasoning in the phases that want a final answer, not while exploring or critiquing", async () => {
    const { run, sent } = llm.start([{ text: "ok" }]);
    for (const phase of ["critiquing", "verifying", "forced_final", "repairing", "max_tokens_recovery"] as const) {
      await modelTurn(run, phase, false);
    }
    expect(sent.map((r) => r.reasoningEffort)).toEqual([undefined, undefined, "minimal", "minimal", "minimal"]);
    expect(sent.every((r) => r.toolChoice === "none")).toBe(true);
  });

  it("throws a Stop with the provider's message when the request fails", async () => {
    const { run } = llm.start([{ status: 400, message: "prompt is too long" }]);
    const err = await modelTurn(run, "exploring", true).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Stop);
    expect(err).toMatchObject({ reason: "error", message: expect.stringContaining("prompt is too long") });
    expect(run.state.messages).toHaveLength(1); // nothing appended
  });

  it("does not count a request the budget refused before sending it", async () => {
    const { run } = llm.start([{ text: "never sent" }], { budget: createBudget({ maxTokens: 20 }) });
    const err = await modelTurn(run, "exploring", true).catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: "budget_exhausted", message: expect.stringContaining("budget") });
    expect(run.state.iterations).toBe(0);
    expect(llm.server.requests).toHaveLength(0);
  });

  it("sends nothing once the run is cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    const { run } = llm.start([{ text: "never sent" }], { signal: controller.signal });
    await expect(modelTurn(run, "exploring", true)).rejects.toMatchObject({ reason: "cancelled" });
    expect(llm.server.requests).toHaveLength(0);
  });
});

describe("noToolsTurn", () => {
  it("adds the instruction, offers no tools, and refuses the calls a model makes anyway", async () => {
    const { run, events, sent } = llm.start([
      { match: "Answer now", text: "Fine.", toolCalls: [{ name: "read_file", input: { path: "README.md" } }] },
    ]);
    const turn = await noToolsTurn(run, "forced_final", "Answer now.");
    expect(turn.text).toBe("Fine.");
    expect(llm.turns()).toEqual(["Review scope: the whole project.\nAnswer now."]);
    expect(sent[0]).toMatchObject({ toolChoice: "none", reasoningEffort: "minimal" });
    // The history ends with the refusal, so the next request is valid.
    expect(run.state.messages.at(-1)).toEqual({
      role: "user",
      content: [{ type: "tool_result", toolUseId: turn.calls[0]!.id, content: TOOLS_UNAVAILABLE, isError: true }],
    });
    expect(ofType(events, "tool_result")).toMatchObject([{ name: "read_file", isError: true }]);
  });
});
