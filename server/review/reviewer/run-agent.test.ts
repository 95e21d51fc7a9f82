/**
 * The agent loop end to end through the scripted LLM server with the real SDKs, in the Anthropic
 * (Messages) and OpenAI (Responses) wire formats. The server answers by matching the caller's latest
 * turn, so each rule below is one step of a conversation.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createBudget } from "../../llm/index.ts";
import type { ScriptedServer } from "../../llm/scripted/server.ts";
import type { RuleInput } from "../../llm/scripted/script.ts";
import { clientFor, startServer } from "../../llm/test-support.ts";
import { type ReviewTool, type AgentEvent, agentEventSchema } from "../../agent/index.ts";
import { runAgent } from "./run-agent.ts";
import { memoryTools, modelFinding, reportText } from "./test-support.ts";

const tree = {
  "src/db.ts":
    "import db from './db';\nexport const getUser = (id) => db.query(`SELECT * FROM users WHERE id = ${id}`);\n",
  "README.md": "# demo\n",
};
const sqlFinding = modelFinding({
  title: "SQL injection",
  file: "src/db.ts",
  start_line: 2,
  evidence: "SELECT * FROM users WHERE id = ${id}",
});
const styleFinding = modelFinding({
  title: "Arrow function style",
  file: "src/db.ts",
  start_line: 2,
  evidence: "export const getUser",
  severity: "info",
  category: "style",
});

let server: ScriptedServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const PROVIDERS = ["anthropic", "openai"] as const;

function run(
  provider: (typeof PROVIDERS)[number],
  rules: RuleInput[],
  extra: Partial<Parameters<typeof runAgent>[0]> = {},
) {
  server.setScript(rules);
  const events: AgentEvent[] = [];
  const llm = clientFor(server, provider, { maxRetries: 0 });
  const promise = runAgent({
    llm,
    mode: "review",
    system: "You review code.",
    firstMessage: "Review scope: the whole project.",
    tools: memoryTools(tree),
    onEvent: (e) => events.push(agentEventSchema.parse(e)),
    ...extra,
  });
  return { promise, events, llm };
}

/** The latest user turn the server saw on each request, in order. */
const turns = () => server.requests.map((r) => r.lastUserText);

describe.each(PROVIDERS)("agent loop (%s wire format)", (provider) => {
  it("runs several tool iterations, then self-critique revises the report", async () => {
    const { promise, events } = run(provider, [
      { match: "review it critically", text: reportText([sqlFinding]) },
      { match: "Review scope", text: "Let me look around.", toolCalls: [{ name: "list_dir", input: { path: "." } }] },
      { match: "README.md\nsrc/db.ts", toolCalls: [{ name: "read_file", input: { path: "src/db.ts" } }] },
      { match: "SELECT * FROM users", text: reportText([sqlFinding, styleFinding]) },
    ]);
    const out = await promise;
    expect(out.error).toBeUndefined();
    expect(out.stopReason).toBe("end_turn");
    expect(out.report?.findings.map((f) => f.title)).toEqual(["SQL injection"]);
    expect(out.notes).toEqual(["revised by self-critique"]);
    expect(out.iterations).toBe(4);
    // The model saw the real tool output, numbered lines included.
    expect(turns()[2]).toContain("   2 | export const getUser");
    expect(turns()[3]).toContain('"Arrow function style"');
    expect(events.filter((e) => e.type === "tool_call").map((e) => (e as { name: string }).name)).toEqual([
      "list_dir",
      "read_file",
    ]);
    expect(events.find((e) => e.type === "tool_result" && e.name === "read_file")).toMatchObject({
      isError: false,
      preview: expect.stringContaining("SELECT"),
    });
    expect(
      events
        .filter((e) => e.type === "token")
        .map((e) => (e as { text: string }).text)
        .join(""),
    ).toContain("Let me look around.");
    const usage = events.filter((e) => e.type === "usage").at(-1);
    expect(usage).toMatchObject({ type: "usage", requests: 4 });
    expect(out.costUsd).toBeGreaterThan(0);
    expect(out.usage.inputTokens).toBe((usage as { usage: { inputTokens: number } }).usage.inputTokens);
    expect(events.at(-1)).toEqual({
      type: "done",
      stopReason: "end_turn",
      iterations: 4,
      notes: ["revised by self-critique"],
    });
    // The REPORT contract is appended to the review's own prompt.
    expect(JSON.stringify(server.requests[0]!.body)).toContain("REPORT:");
  });

  it("sends invalid tool arguments and unknown tools back as errors the model can correct", async () => {
    const { promise, events } = run(
      provider,
      [
        {
          match: "Review scope",
          toolCalls: [
            { name: "read_file", input: { path: 42 } },
            { name: "delete_everything", input: {} },
          ],
        },
        { match: "Invalid arguments for read_file", toolCalls: [{ name: "read_file", input: { path: "README.md" } }] },
        { match: "# demo", text: reportText([]) },
      ],
      { critiqueRounds: 0 },
    );
    const out = await promise;
    expect(out.report).toMatchObject({ findings: [] });
    expect(turns()[1]).toMatch(/Invalid arguments for read_file:\n\s+path: .*expected string/);
    expect(turns()[1]).toContain('There is no tool named "delete_everything". Available tools: read_file, list_dir.');
    expect(events.filter((e) => e.type === "tool_result").map((e) => (e as { isError: boolean }).isError)).toEqual([
      true,
      true,
      false,
    ]);
  });

  it("repairs a broken REPORT by sending the exact validation error back", async () => {
    const { promise } = run(
      provider,
      [
        { match: "could not be used", text: reportText([sqlFinding]) },
        {
          match: "Review scope",
          text: `REPORT: ${JSON.stringify({ summary: "x", overall_score: 150, findings: [{ ...sqlFinding, severity: "urgent" }] })}`,
        },
      ],
      { critiqueRounds: 0 },
    );
    const out = await promise;
    expect(out.report?.findings).toHaveLength(1);
    expect(out.notes).toEqual(["report repaired"]);
    expect(turns()[1]).toContain("overall_score: Too big");
    expect(turns()[1]).toContain("findings.0.severity: Invalid option");
    // The repair turn offers no tools.
    const body = server.requests[1]!.body as { tool_choice?: unknown };
    expect(JSON.stringify(body.tool_choice)).toContain("none");
  });

  it("gives up after the bounded repairs with a clear error", async () => {
    const { promise, events } = run(provider, [{ text: "I think the code is fine." }], { maxRepairs: 2 });
    const out = await promise;
    expect(out.report).toBeUndefined();
    expect(out.stopReason).toBe("invalid_report");
    expect(out.iterations).toBe(3);
    expect(out.error).toMatch(/^No usable REPORT after 2 repair attempt\(s\): No "REPORT:" line/);
    expect(events.some((e) => e.type === "error")).toBe(true);
  });

  it("recovers from max_tokens mid-thought by asking for the report now", async () => {
    const { promise, events } = run(
      provider,
      [
        { match: "cut off at the output limit", text: reportText([sqlFinding]) },
        { match: "Review scope", text: "I will now carefully go through every function and", stopReason: "max_tokens" },
      ],
      { critiqueRounds: 0 },
    );
    const out = await promise;
    expect(out.report?.findings).toHaveLength(1);
    expect(out.notes).toEqual(["max_tokens recovery"]);
    expect(events.some((e) => e.type === "status" && e.phase === "max_tokens_recovery")).toBe(true);
  });

  it("runs a forced final no-tools pass when the iterations run out", async () => {
    const { promise } = run(
      provider,
      [
        { match: "Do not call any more tools", text: reportText([sqlFinding]) },
        { toolCalls: [{ name: "list_dir", input: {} }] },
      ],
      { maxIterations: 3 },
    );
    const out = await promise;
    expect(out.stopReason).toBe("max_iterations");
    expect(out.iterations).toBe(4);
    expect(out.report?.findings).toHaveLength(1);
    expect(out.notes).toEqual(["forced final pass (iteration limit reached)"]);
    expect(turns()[3]).toContain("iteration limit");
  });

  it("stops exploring while there is budget left for the forced final pass", async () => {
    const budget = createBudget({ maxTokens: 12_000 });
    const { promise } = run(
      provider,
      [
        { match: "Do not call any more tools", text: reportText([sqlFinding]), usage: { input: 1500, output: 300 } },
        { toolCalls: [{ name: "list_dir", input: {} }], usage: { input: 1500, output: 100 } },
      ],
      { budget },
    );
    const out = await promise;
    expect(out.stopReason).toBe("budget_exhausted");
    expect(out.notes).toEqual(["forced final pass (budget nearly spent)"]);
    expect(out.report?.findings).toHaveLength(1);
    expect(out.iterations).toBeGreaterThanOrEqual(3);
    expect(budget.spentTokens).toBeLessThanOrEqual(12_000);
    expect(budget.spentTokens).toBe(out.usage.inputTokens + out.usage.outputTokens);
  });

  it("ends with budget_exhausted and no report when not even the final pass fits", async () => {
    const { promise } = run(provider, [{ text: "never called" }], { budget: createBudget({ maxTokens: 50 }) });
    const out = await promise;
    expect(out).toMatchObject({ stopReason: "budget_exhausted", iterations: 0 });
    expect(out.report).toBeUndefined();
    expect(out.error).toContain("token budget exhausted");
    expect(server.requests).toHaveLength(0);
  });

  it("stops promptly when cancelled while the model streams", async () => {
    const controller = new AbortController();
    const { promise, events } = run(
      provider,
      [{ text: Array.from({ length: 50 }, (_, i) => `word${i} `), chunkDelayMs: 100 }],
      {
        signal: controller.signal,
        onEvent: (e) => {
          events.push(e);
          if (e.type === "token") controller.abort();
        },
      },
    );
    const started = Date.now();
    const out = await promise;
    expect(out.stopReason).toBe("cancelled");
    expect(out.report).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(events.at(-1)).toMatchObject({ type: "done", stopReason: "cancelled" });
  });

  it("stops promptly when cancelled while a tool runs, even one that ignores the signal", async () => {
    const controller = new AbortController();
    const hang: ReviewTool = {
      name: "hang",
      description: "never returns",
      input: z.object({}),
      run: () => new Promise(() => {}),
    };
    const { promise } = run(provider, [{ toolCalls: [{ name: "hang", input: {} }] }], {
      tools: [hang],
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === "tool_call") setTimeout(() => controller.abort(), 20);
      },
    });
    const out = await promise;
    expect(out.stopReason).toBe("cancelled");
    expect(server.requests).toHaveLength(1);
  });

  it("chat mode: answers without a REPORT, and forces a final answer at the iteration limit", async () => {
    const { promise } = run(
      provider,
      [
        { match: "Answer the question now", text: "getUser builds SQL from its argument." },
        { toolCalls: [{ name: "read_file", input: { path: "src/db.ts" } }] },
      ],
      { mode: "chat", maxIterations: 2, firstMessage: "Where is SQL built?" },
    );
    const out = await promise;
    expect(out).toMatchObject({
      answer: "getUser builds SQL from its argument.",
      stopReason: "max_iterations",
      notes: ["forced final answer (iteration limit reached)"],
    });
    expect(out.report).toBeUndefined();
    expect(JSON.stringify(server.requests[0]!.body)).not.toContain("REPORT:");
    // The history can carry on in a next turn.
    expect(out.messages.at(-1)).toMatchObject({ role: "assistant" });
  });

  it("chat mode: a normal answer ends the turn and continues after a prior history", async () => {
    const history = [
      { role: "user" as const, content: [{ type: "text" as const, text: "hi" }] },
      { role: "assistant" as const, content: [{ type: "text" as const, text: "Hello." }] },
    ];
    const { promise } = run(provider, [{ match: "And the README?", text: "It says # demo." }], {
      mode: "chat",
      history,
      firstMessage: "And the README?",
    });
    const out = await promise;
    expect(out).toMatchObject({ answer: "It says # demo.", stopReason: "end_turn", iterations: 1, notes: [] });
    expect(out.messages).toHaveLength(4);
    expect(history).toHaveLength(2); // the caller's array is not modified
  });
});
