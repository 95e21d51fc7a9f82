import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBudget } from "../../llm/index.ts";
import type { ScriptedServer } from "../../llm/scripted/server.ts";
import { clientFor, startServer } from "../../llm/test-support.ts";
import type { Finding } from "../report/schema.ts";
import { memoryTools } from "./test-support.ts";
import { verifyFindings } from "./verify.ts";

const finding = (title: string): Finding => ({
  fingerprint: `fp-${title}`,
  title,
  severity: "high",
  confidence: 0.8,
  category: "correctness",
  file: "a.ts",
  startLine: 1,
  endLine: 1,
  evidence: "x()",
  explanation: "e",
  verification: "not_run",
  source: "agent",
});

let server: ScriptedServer;
beforeAll(async () => {
  server = await startServer([
    { match: "could not be used", text: 'VERDICT: {"verdict": "confirmed"}' },
    { match: "Confirmed without proof", text: 'VERDICT: {"verdict": "confirmed"}' },
    { match: "Sure thing", text: 'VERDICT: {"verdict": "confirmed", "evidence": "a.ts:1 x()"}' },
  ]);
});
afterAll(() => server.close());

describe("verifyFindings", () => {
  it("insists on evidence for a confirmation: no usable verdict counts as not confirmed", async () => {
    const out = await verifyFindings({
      llm: clientFor(server, "openai", { maxRetries: 0 }),
      tools: memoryTools({}),
      findings: [finding("Confirmed without proof"), finding("Sure thing")],
    });
    expect(out.results.get("fp-Confirmed without proof")).toEqual({
      verdict: "rejected",
      note: "the verifier gave no usable verdict",
    });
    expect(out.results.get("fp-Sure thing")).toEqual({ verdict: "confirmed", note: "a.ts:1 x()" });
    // The repair turn quoted the schema error back.
    expect(server.requests.some((r) => r.lastUserText.includes("a confirmed verdict needs evidence"))).toBe(true);
    expect(out.requests).toBe(3);
  });

  it("leaves every finding not_run once the shared budget is spent, and says so", async () => {
    server.reset();
    const out = await verifyFindings({
      llm: clientFor(server, "anthropic", { maxRetries: 0 }),
      tools: memoryTools({}),
      findings: [finding("Sure thing"), finding("Sure thing 2")],
      budget: createBudget({ maxTokens: 30 }),
    });
    expect([...out.results.values()]).toEqual([{ verdict: "not_run" }, { verdict: "not_run" }]);
    expect(out.notes).toEqual(["verification stopped: the budget is spent"]);
    expect(server.requests).toHaveLength(0);
  });
});
