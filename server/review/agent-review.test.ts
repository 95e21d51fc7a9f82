/**
 * Whole agent reviews through the web app's API and job, against the scripted LLM server in the
 * Anthropic and the OpenAI (Responses) wire formats: a workspace provider connection, tool calls over
 * the real snapshot (a path escape refused), a REPORT checked against the code, verification, the
 * findings stored, and the usage recorded. The loop's edge cases are in agent/*.test.ts.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp, startTestServer, type TestServer, type TestUser } from "../../test/helpers/server.ts";
import type { ScriptedServer } from "../llm/scripted/server.ts";
import { startServer as startScripted } from "../llm/test-support.ts";
import { modelFinding, reportText } from "./reviewer/test-support.ts";

let app: TestServer;
let llm: ScriptedServer;
let owner: TestUser;
let projectUid: string;

const SQL_EVIDENCE = `cursor.execute(f"SELECT id, name, stock FROM items WHERE name LIKE '%{name}%'")`;
const sqlFinding = modelFinding({
  title: "SQL injection in find_items",
  file: "src/api.py",
  start_line: 19,
  end_line: 19,
  evidence: SQL_EVIDENCE,
  severity: "critical",
  category: "security",
});
const report = reportText([
  sqlFinding,
  // Wrong lines: repaired from the evidence.
  modelFinding({
    title: "Off-by-one in basketTotal",
    file: "src/pricing.js",
    start_line: 2,
    end_line: 2,
    evidence: "for (let i = 0; i <= lines.length; i++) {",
    severity: "high",
    category: "correctness",
  }),
  // Invented code: dropped.
  modelFinding({
    title: "Hard-coded admin password",
    file: "src/server.js",
    start_line: 3,
    end_line: 3,
    evidence: 'const ADMIN_PASSWORD = "hunter2";',
    severity: "critical",
    category: "security",
  }),
]);

beforeAll(async () => {
  // First matching rule wins (by the last user message), so the most specific come first.
  llm = await startScripted([
    {
      match: "Verify this finding",
      text: 'VERDICT: {"verdict": "confirmed", "evidence": "src/api.py:19 builds SQL from request input"}',
    },
    { match: "review it critically", text: report },
    {
      match: "Review scope",
      toolCalls: [
        { name: "read_file", input: { path: "../../../../auth-secret" } },
        { name: "grep", input: { pattern: "execute\\(", literal: false } },
      ],
    },
    { match: "cursor.execute", text: `I have what I need.\n${report}` },
  ]);
  app = await startTestServer();
  owner = await signUp(app.url, { name: "Owner" });
  const demo = await owner.client.ok<{ projectUid: string }>("mutate", "projects.startDemo", {
    workspaceId: owner.workspaceId,
  });
  projectUid = demo.projectUid;
  await app.services.queue.idle();
}, 180_000);

afterAll(async () => {
  await app?.stop();
  await llm?.close();
});

/** Saves a provider connection in the owner's workspace; returns its uid. */
async function saveConnection(fields: {
  name: string;
  provider: string;
  baseUrl: string;
  model: string;
  apiKey: string;
}): Promise<string> {
  const uid = crypto.randomUUID();
  await owner.client.ok("mutate", "providers.save", { workspaceId: owner.workspaceId, uid, ...fields });
  return uid;
}

/** A connection to the scripted server over the provider's wire format. */
function connection(provider: "anthropic" | "openai"): Promise<string> {
  return saveConnection({
    name: `scripted ${provider}`,
    provider,
    baseUrl: provider === "anthropic" ? llm.url : `${llm.url}/v1`,
    model: provider === "anthropic" ? "claude-sonnet-5-5" : "gpt-5",
    apiKey: "sk-test",
  });
}

describe.each(["anthropic", "openai"] as const)("an agent review over the %s wire format", (provider) => {
  it("uses the tools on the snapshot, refuses a path escape, checks and verifies the report, and stores it", async () => {
    const before = llm.requests.length;
    const review = await owner.client.ok<{
      uid: string;
      status: string;
      provider: string;
      model: string;
      promptName: string;
    }>("mutate", "reviews.start", {
      projectUid,
      engine: "agent",
      connectionUid: await connection(provider),
      budget: { maxIterations: 10 },
    });
    expect(review).toMatchObject({ status: "queued", provider, promptName: "General code review" });
    await app.services.queue.idle();

    const done = await owner.client.ok<{
      status: string;
      statusReason: string | null;
      usage: { inputTokens: number; iterations: number };
      report: { engineLabel: string; stages: Record<string, number> };
    }>("query", "reviews.get", { uid: review.uid });
    expect(done.statusReason).toBeNull();
    expect(done.status).toBe("completed");
    expect(done.report.engineLabel).toContain(provider);
    expect(done.report.stages).toMatchObject({ proposed: 3, droppedUnlocatable: 1, repairedLocation: 1, kept: 2 });
    expect(done.usage.inputTokens).toBeGreaterThan(0);

    const findings = await owner.client.ok<
      {
        title: string;
        file: string;
        startLine: number;
        verification: string;
        verificationNote: string | null;
        source: string;
      }[]
    >("query", "reviews.findings", { reviewUid: review.uid });
    expect(findings[0]!.verificationNote).toContain("builds SQL from request input");
    expect(findings.map((f) => [f.title, f.file, f.startLine, f.verification])).toEqual([
      ["SQL injection in find_items", "src/api.py", 19, "confirmed"],
      ["Off-by-one in basketTotal", "src/pricing.js", 6, "confirmed"],
    ]);

    // The prompt is the workspace's review prompt; the escape was refused and nothing outside was sent.
    const bodies = llm.requests.slice(before).map((r) => JSON.stringify(r.body));
    expect(bodies[0]).toContain("Review scope");
    const secret = readFileSync(path.join(app.services.config.dataDir, "auth-secret"), "utf8").trim();
    expect(secret.length).toBeGreaterThan(16);
    expect(bodies.join("\n")).not.toContain(secret);
    const events = await owner.client.ok<{ type: string; payload: { name?: string; isError?: boolean } }[]>(
      "query",
      "reviews.events",
      { uid: review.uid },
    );
    const toolResults = events.filter((e) => e.type === "tool_result").map((e) => [e.payload.name, e.payload.isError]);
    expect(toolResults).toContainEqual(["read_file", true]);
    expect(toolResults).toContainEqual(["grep", false]);
    expect(events.map((e) => e.type)).toContain("tool_call");
    expect(events.filter((e) => e.type === "done")).toHaveLength(1);
    expect(events.at(-1)!.type).toBe("done");
  });
});

describe("a model whose REPORT has no scores", () => {
  it("completes the review with scores Argus computed from the findings, and every export says so", async () => {
    const noScores = reportText([sqlFinding], { overall_score: undefined, category_scores: undefined });
    const scoreless = await startScripted([
      { match: "review it critically", text: noScores },
      { match: "Review scope", text: noScores },
    ]);
    try {
      const uid = crypto.randomUUID();
      await owner.client.ok("mutate", "providers.save", {
        workspaceId: owner.workspaceId,
        uid,
        name: "scoreless",
        provider: "anthropic",
        baseUrl: scoreless.url,
        model: "claude-sonnet-5-5",
        apiKey: "sk-test",
      });
      const review = await owner.client.ok<{ uid: string }>("mutate", "reviews.start", {
        projectUid,
        engine: "agent",
        connectionUid: uid,
        settings: { verify: false },
      });
      await app.services.queue.idle();
      const done = await owner.client.ok<{
        status: string;
        scoreOverall: number;
        report: { overallScore: number; categoryScores: Record<string, number>; notes: string[] };
      }>("query", "reviews.get", { uid: review.uid });
      // One critical security finding (weight 40): 100 · e^(−0.4) = 67.
      expect(done).toMatchObject({
        status: "completed",
        scoreOverall: 67,
        report: { overallScore: 67, categoryScores: { security: 67 } },
      });
      const note = done.report.notes.find((n) => n.startsWith("Scores computed by Argus"));
      expect(note).toBeDefined();
      for (const format of ["md", "sarif", "json"]) {
        const res = await fetch(`${app.url}/api/reviews/${review.uid}/export?format=${format}`, {
          headers: { cookie: owner.client.cookie },
        });
        expect(res.status).toBe(200);
        expect(await res.text()).toContain(format === "md" ? note : JSON.stringify(note).slice(1, -1));
      }
    } finally {
      await scoreless.close();
    }
  }, 60_000);
});

describe("cancelling a running agent review", () => {
  it("stops the model mid-request and records the review as cancelled, with nothing half-written", async () => {
    const slow = await startScripted([{ match: "Review scope", delayMs: 30_000, text: "too late" }]);
    try {
      const uid = await saveConnection({
        name: "slow",
        provider: "anthropic",
        baseUrl: slow.url,
        model: "claude-sonnet-5-5",
        apiKey: "sk-test",
      });
      const review = await owner.client.ok<{ uid: string }>("mutate", "reviews.start", {
        projectUid,
        engine: "agent",
        connectionUid: uid,
      });
      const started = Date.now();
      for (;;) {
        const r = await owner.client.ok<{ status: string }>("query", "reviews.get", { uid: review.uid });
        if (r.status === "running" && slow.requests.length > 0) break;
        if (Date.now() - started > 20_000) throw new Error(`the review did not start: ${r.status}`);
        await new Promise((res) => setTimeout(res, 50));
      }
      const cancelled = Date.now();
      await owner.client.ok("mutate", "reviews.cancel", { uid: review.uid });
      await app.services.queue.idle();
      expect(Date.now() - cancelled).toBeLessThan(10_000);
      const done = await owner.client.ok<{ status: string; statusReason: string; findingsCount: number }>(
        "query",
        "reviews.get",
        { uid: review.uid },
      );
      expect(done).toMatchObject({ status: "cancelled", statusReason: "Cancelled by a user.", findingsCount: 0 });
      const events = await owner.client.ok<{ type: string; payload: { status?: string } }[]>(
        "query",
        "reviews.events",
        { uid: review.uid },
      );
      // Lifecycle statuses (the agent's own "status" events carry a phase and a message instead).
      expect(events.filter((e) => e.type === "review_status").map((e) => e.payload.status)).toEqual([
        "queued",
        "running",
        "cancelled",
      ]);
    } finally {
      await slow.close();
    }
  }, 60_000);
});

describe("a failing model", () => {
  it("fails the review with the provider's message and keeps nothing half-written", async () => {
    const uid = await saveConnection({
      name: "dead end",
      provider: "openai-compatible",
      baseUrl: "http://127.0.0.1:9/v1",
      model: "nothing",
      apiKey: "x",
    });
    const review = await owner.client.ok<{ uid: string }>("mutate", "reviews.start", {
      projectUid,
      engine: "agent",
      connectionUid: uid,
      budget: { maxIterations: 3 },
    });
    await app.services.queue.idle();
    const done = await owner.client.ok<{ status: string; statusReason: string; findingsCount: number }>(
      "query",
      "reviews.get",
      { uid: review.uid },
    );
    expect(done.status).toBe("failed");
    expect(done.statusReason).toMatch(/openai-compatible|connect|ECONNREFUSED|network/i);
    expect(done.findingsCount).toBe(0);
  }, 120_000);
});
