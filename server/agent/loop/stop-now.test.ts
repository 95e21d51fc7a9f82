/**
 * A Stop (the signal aborted with a StopNow): the request in flight ends at once, no tool runs after
 * it, and the run ends as stopped — not cancelled — keeping an answer it had already accepted.
 */
import { describe, expect, it } from "vitest";
import { runLoop } from "../loop.ts";
import { StopNow } from "./stop.ts";
import { TREE, answerContract, critiqueRules, ofType, useScriptedRuns } from "./test-support.ts";
import { memoryTools } from "../test-support.ts";
import { clientFor } from "../../llm/test-support.ts";
import type { AgentEvent } from "../events.ts";

const llm = useScriptedRuns();
const WHO = "Stopped by Ann: the report covers what was explored until then.";

function loop(rules: Parameters<typeof llm.start>[0], critique = 0) {
  llm.server.setScript(rules);
  const controller = new AbortController();
  const events: AgentEvent[] = [];
  const outcome = runLoop({
    llm: clientFor(llm.server, "anthropic", { maxRetries: 0 }),
    system: "You review code.",
    firstMessage: "Review scope: the whole project.",
    tools: memoryTools(TREE),
    contract: answerContract(critique ? critiqueRules(critique) : undefined),
    signal: controller.signal,
    onEvent: (e) => events.push(e),
  });
  return { controller, events, outcome };
}

describe("StopNow", () => {
  it("aborts the request in flight: stopped at once, its tool call never runs, the note says who", async () => {
    const { controller, events, outcome } = loop([
      { toolCalls: [{ name: "read_file", input: { path: "README.md" } }], delayMs: 8000 },
    ]);
    await expect.poll(() => llm.server.requests.length, { timeout: 10_000 }).toBe(1);
    const t0 = performance.now();
    controller.abort(new StopNow(WHO));
    const out = await outcome;
    // Long before the 8 s answer would have come (the margin is for a loaded machine).
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(out).toMatchObject({ stopReason: "stopped", notes: [WHO] });
    expect(out.value).toBeUndefined();
    expect(out.error).toBeUndefined();
    expect(ofType(events, "tool_result")).toEqual([]);
    expect(ofType(events, "done")).toMatchObject([{ stopReason: "stopped" }]);
    expect(llm.server.requests).toHaveLength(1);
  });

  it("during the self-critique keeps the answer already accepted", async () => {
    const { controller, outcome } = loop(
      [{ match: "Critique this", text: 'ANSWER: {"n": 2}', delayMs: 8000 }, { text: 'ANSWER: {"n": 1}' }],
      2,
    );
    await expect.poll(() => llm.server.requests.length, { timeout: 10_000 }).toBe(2);
    controller.abort(new StopNow(WHO));
    const out = await outcome;
    expect(out).toMatchObject({ stopReason: "stopped", value: { n: 1 } });
    expect(out.notes).toContain(WHO);
  });

  it("a plain abort is still a cancel", async () => {
    const { controller, outcome } = loop([{ text: 'ANSWER: {"n": 1}', delayMs: 8000 }]);
    await expect.poll(() => llm.server.requests.length, { timeout: 10_000 }).toBe(1);
    controller.abort(new Error("Cancelled by a user."));
    expect(await outcome).toMatchObject({ stopReason: "cancelled", notes: [] });
  });
});
