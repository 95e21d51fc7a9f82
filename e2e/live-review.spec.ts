import { expect, test, type APIRequestContext } from "@playwright/test";
import { startScriptedServer, type ScriptedServer } from "../server/llm/scripted/server.ts";
import { signUpOrSignIn } from "./support/owner.ts";

// Watching an agent review as it happens: the review page joins the review's Socket.IO room and the
// model's streamed text and tool calls appear before the review ends. The model is the scripted
// server (real wire format), streaming slowly enough to watch.

const REPORT = {
  summary: "One SQL injection in the item search.",
  overall_score: 55,
  category_scores: { security: 40 },
  findings: [
    {
      title: "SQL injection in find_items",
      severity: "critical",
      confidence: 0.9,
      category: "security",
      file: "src/api.py",
      start_line: 19,
      end_line: 19,
      evidence: `cursor.execute(f"SELECT id, name, stock FROM items WHERE name LIKE '%{name}%'")`,
      explanation: "The name parameter goes straight into the SQL text.",
      suggested_fix: "Use a parameterised query.",
    },
  ],
};

async function trpc<T>(request: APIRequestContext, path: string, input: unknown): Promise<T> {
  const res = await request.post(`/api/trpc/${path}`, { data: input });
  expect(res.status(), `${path}: ${await res.text()}`).toBe(200);
  return (await res.json()).result.data as T;
}

test("the agent's streamed text and tool calls show up live while the review runs", async ({ page }) => {
  test.setTimeout(240_000);
  const words = "Let me look at the request handlers first, starting with the item search endpoint."
    .split(" ")
    .map((w) => `${w} `);
  const llm: ScriptedServer = await startScriptedServer({
    script: [
      // First matching rule wins (by the last user message): the most specific first.
      { match: "review it critically", text: `REPORT: ${JSON.stringify(REPORT)}` },
      { match: "Review scope", toolCalls: [{ name: "grep", input: { pattern: "execute" } }] },
      { match: "cursor.execute", text: [...words, `\nREPORT: ${JSON.stringify(REPORT)}`], chunkDelayMs: 250 },
    ],
  });
  try {
    await signUpOrSignIn(page);
    const me = await page.request.get("/api/trpc/account.me");
    const workspaceId = (await me.json()).result.data.workspaces[0].id as string;
    const connectionUid = crypto.randomUUID();
    await trpc(page.request, "providers.save", {
      workspaceId,
      uid: connectionUid,
      name: `live ${connectionUid.slice(0, 6)}`,
      provider: "anthropic",
      baseUrl: llm.url,
      model: "claude-sonnet-4-5",
      apiKey: "sk-test",
    });
    const demo = await trpc<{ projectUid: string }>(page.request, "projects.startDemo", { workspaceId });
    const review = await trpc<{ uid: string }>(page.request, "reviews.start", {
      projectUid: demo.projectUid,
      engine: "agent",
      connectionUid,
      settings: { verify: false },
    });

    await page.goto(`/reviews/${review.uid}`);
    const activity = page.getByRole("log", { name: "Review activity" }).or(page.getByLabel("Review activity"));
    await expect(page.getByText("live", { exact: true })).toBeVisible();
    // The tool call and the first streamed words arrive while the review is still running.
    await expect(activity).toContainText("grep", { timeout: 30_000 });
    await expect(activity).toContainText("Let me look at the request handlers", { timeout: 30_000 });
    await expect(page.locator('[data-status="running"]')).toBeVisible();
    await expect(page.locator('[data-status="completed"]')).toBeVisible({ timeout: 60_000 });
    await expect(page.getByRole("list", { name: "Findings" })).toContainText("SQL injection in find_items");
  } finally {
    await llm.close();
  }
});
