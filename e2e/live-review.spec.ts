import { expect, test } from "@playwright/test";
import { startScriptedServer, type ScriptedServer } from "../server/llm/scripted/server.ts";
import { signUpOrSignIn } from "./support/owner.ts";
import { reportAnswer, startScriptedReview, workspaceOf } from "./support/scripted-review.ts";

// Watching an agent review as it happens: the review page joins the review's Socket.IO room and the
// model's streamed text and tool calls appear before the review ends. The model is the scripted
// server (real wire format), streaming slowly enough to watch.

test("the agent's streamed text and tool calls show up live while the review runs", async ({ page }) => {
  test.setTimeout(240_000);
  const words = "Let me look at the request handlers first, starting with the item search endpoint."
    .split(" ")
    .map((w) => `${w} `);
  const llm: ScriptedServer = await startScriptedServer({
    script: [
      // First matching rule wins (by the last user message): the most specific first.
      { match: "review it critically", text: reportAnswer() },
      { match: "Review scope", toolCalls: [{ name: "grep", input: { pattern: "execute" } }] },
      { match: "cursor.execute", text: [...words, reportAnswer("\n")], chunkDelayMs: 250 },
    ],
  });
  try {
    await signUpOrSignIn(page);
    const workspaceId = await workspaceOf(page);
    const { reviewUid } = await startScriptedReview(page, llm, workspaceId);

    await page.goto(`/reviews/${reviewUid}`);
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
