/**
 * Token and cost budgets, enforced by the client against the scripted server.
 */
import { describe, expect, it } from "vitest";
import { createBudget, fitToBudget } from "./budget.ts";
import { clientFor, collect, scriptedServerForFile } from "./test-support.ts";
import { userText } from "./types.ts";

const server = await scriptedServerForFile();

describe("budgets", () => {
  it("charges each request to the job budget and lowers max_tokens to what is left", async () => {
    server.setScript([{ text: "ok", usage: { input: 400, output: 100 } }]);
    const budget = createBudget({ maxTokens: 2000 });
    const client = clientFor(server, "anthropic");
    await collect(client.stream({ messages: [userText("x".repeat(400))], budget }));
    expect(budget.spentTokens).toBe(500);

    await collect(client.stream({ messages: [userText("x".repeat(400))], budget }));
    // 1500 left, minus a ~100-token prompt estimate.
    expect(server.requests[1]!.body.max_tokens).toBe(1400);
    expect(budget.spentTokens).toBe(1000);
  });

  it("stops cleanly, without calling the provider, once the budget is spent", async () => {
    server.setScript([{ text: "ok", usage: { input: 900, output: 100 } }]);
    const budget = createBudget({ maxTokens: 1000 });
    const client = clientFor(server, "openai");
    await collect(client.stream({ messages: [userText("hi")], budget }));
    const { events, stop } = await collect(client.stream({ messages: [userText("hi")], budget }));

    expect(server.requests).toHaveLength(1);
    expect(events).toHaveLength(1);
    expect(stop).toMatchObject({ reason: "error", content: [], error: { kind: "budget_exceeded", retryable: false } });
    expect(stop.error?.message).toContain("token budget exhausted (1000 of 1000 used");
  });

  it("turns a per-request cost ceiling into max_tokens, and refuses models without a price", async () => {
    server.setScript([{ text: "ok" }]);
    // gpt-5.4 output is $15 per million: $0.015 buys 1,000 tokens, minus the prompt's cost.
    await collect(clientFor(server, "openai").stream({ messages: [userText("hi")], maxCostUsd: 0.015 }));
    expect(server.requests[0]!.body.max_output_tokens).toBe(999);

    const { stop } = await collect(
      clientFor(server, "openai-compatible").stream({ messages: [userText("hi")], maxCostUsd: 1 }),
    );
    expect(stop.error?.message).toContain("no known price");
  });

  it("holds what a running request may spend, so requests at once on one budget cannot overspend it together", async () => {
    server.setScript([{ text: "ok", usage: { input: 400, output: 100 }, delayMs: 300 }]);
    const budget = createBudget({ maxTokens: 3000 });
    const client = clientFor(server, "anthropic");
    const first = collect(client.stream({ messages: [userText("x".repeat(400))], budget }));
    await expect.poll(() => server.requests.length).toBe(1);
    // The first may still spend its prompt and its max_tokens: all of the 3,000 is held for it.
    expect(budget.heldTokens).toBe(3000);
    const second = await collect(client.stream({ messages: [userText("x".repeat(400))], budget }));
    expect(second.stop.error).toMatchObject({ kind: "budget_exceeded" });
    expect(server.requests).toHaveLength(1);
    await first;
    // Its charge replaces its hold: 500 spent, nothing held, the rest free for the next request.
    expect([budget.spentTokens, budget.heldTokens]).toEqual([500, 0]);
    await collect(client.stream({ messages: [userText("x".repeat(400))], budget }));
    expect(server.requests[1]!.body.max_tokens).toBe(2400);
  });

  it("releases a failed request's hold", async () => {
    server.setScript([{ status: 400, message: "bad" }]);
    const budget = createBudget({ maxTokens: 3000 });
    await collect(clientFor(server, "anthropic").stream({ messages: [userText("hi")], budget }));
    expect(budget.heldTokens).toBe(0);
  });

  it("fitToBudget leaves max_tokens alone without limits", () => {
    expect(fitToBudget({ estimatedInput: 10, maxTokens: 500, pricing: undefined })).toEqual({
      ok: true,
      maxTokens: 500,
    });
  });
});
