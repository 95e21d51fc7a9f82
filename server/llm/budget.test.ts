/**
 * Token and cost budgets, enforced by the client against the scripted server.
 */
import { describe, expect, it } from "vitest";
import { type Reservation, type ReserveRequest, Budget, createBudget, fitToBudget } from "./budget.ts";
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

  it("a budget with reserve (shared beyond this process) is asked instead: its max_tokens, its hold, its refusal", async () => {
    server.setScript([{ text: "ok", usage: { input: 400, output: 100 } }]);
    const asked: ReserveRequest[] = [];
    const log: string[] = [];
    let answer: Reservation = {
      ok: true,
      maxTokens: 321,
      hold: {
        charge: (usage, cost) => log.push(`charge ${usage.inputTokens + usage.outputTokens} ${cost}`),
        release: () => log.push("release"),
      },
    };
    const budget = new Budget({ maxTokens: 1_000_000 });
    budget.reserve = async (r) => {
      asked.push(r);
      await new Promise((resolve) => setTimeout(resolve, 5));
      return answer;
    };
    const client = clientFor(server, "anthropic");
    await collect(client.stream({ messages: [userText("x".repeat(400))], maxTokens: 2000, budget }));
    expect(asked).toMatchObject([{ maxTokens: 2000, pricing: client.info.pricing }]);
    expect(asked[0]!.estimatedInput).toBeGreaterThan(90);
    expect(server.requests[0]!.body.max_tokens).toBe(321);
    // The hold is charged once, then released (a no-op for a charged hold); the budget's own fields are the reserver's.
    expect(log).toEqual([expect.stringMatching(/^charge 500 0\.\d+$/), "release"]);
    expect(budget.spentTokens).toBe(0);

    answer = { ok: false, reason: "the shared budget cannot be checked", kind: "bad_request" };
    const refused = await collect(client.stream({ messages: [userText("hi")], budget }));
    expect(server.requests).toHaveLength(1);
    expect(refused.stop.error).toMatchObject({ kind: "bad_request", retryable: false });
    expect(refused.stop.error?.message).toContain("the shared budget cannot be checked");
    answer = { ok: false, reason: "spent" };
    expect((await collect(client.stream({ messages: [userText("hi")], budget }))).stop.error?.kind).toBe(
      "budget_exceeded",
    );
  });

  it("fitToBudget leaves max_tokens alone without limits", () => {
    expect(fitToBudget({ estimatedInput: 10, maxTokens: 500, pricing: undefined })).toEqual({
      ok: true,
      maxTokens: 500,
    });
  });
});
