import { expect, test } from "@playwright/test";
import { startScriptedServer, type ScriptedServer } from "../server/llm/scripted/server.ts";
import { signUpOrSignIn } from "./support/owner.ts";
import { inOwnWorkspace } from "./support/own-workspace.ts";
import { startScriptedReview, workspaceOf } from "./support/scripted-review.ts";

inOwnWorkspace("Stop means stop");

// Issue 28, point 5: Stop means stop. The stand-in model takes 8 s per request; Stop aborts the one
// in flight, the review completes within a second or so, "stopped by <name>", with a partial report.
// The progress counts iterations of the budget and tool calls, not a fixed 5 %. One Stop button,
// with the choice between a partial report and a cancel.
test.describe.configure({ mode: "serial" });

let llm: ScriptedServer;
test.beforeAll(async () => {
  llm = await startScriptedServer({
    script: [
      // The first turn answers at once with a tool call; every later request takes 8 s.
      { match: "Review scope", toolCalls: [{ name: "list_dir", input: { path: "." } }] },
      { toolCalls: [{ name: "read_file", input: { path: "src/api.py" } }], delayMs: 8000 },
    ],
  });
});
test.afterAll(async () => {
  await llm?.close();
});

test("Stop with a partial report ends the review at once, stopped by its author", async ({ page }) => {
  test.setTimeout(120_000);
  await signUpOrSignIn(page);
  const workspaceId = await workspaceOf(page);
  llm.reset();
  const { reviewUid } = await startScriptedReview(page, llm, workspaceId);
  await page.goto(`/reviews/${reviewUid}`);
  await expect(page.locator('[data-status="running"]').first()).toBeVisible({ timeout: 30_000 });
  // Real progress: the first turn and its tool call, of the budget's iterations.
  await expect(page.getByTestId("review-progress")).toHaveText(/^iteration 1 of \d+ · 1 tool call run$/, {
    timeout: 30_000,
  });
  // The second request is in flight (8 s) when the Stop comes.
  await expect.poll(() => llm.requests.length, { timeout: 30_000 }).toBe(2);

  await page.getByRole("button", { name: "Stop", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Stop this review?" });
  await expect(dialog.getByRole("button", { name: "Stop with a partial report" })).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Cancel the review" })).toBeVisible();
  const asked = Date.now();
  await dialog.getByRole("button", { name: "Stop with a partial report" }).click();
  await expect(page.locator('[data-status="completed"]').first()).toBeVisible({ timeout: 5000 });
  const settled = Date.now() - asked;
  console.log(`stop → completed on the page: ${settled} ms`);
  // Well before the 8 s request would have answered.
  expect(settled).toBeLessThan(3000);
  await expect(page.getByRole("note").filter({ hasText: /Stopped early by .+: the report covers/ })).toBeVisible();
  await expect(page.getByText(/The agent was stopped after 2 of \d+ iterations \(1 tool call run\)/)).toBeVisible();
  // The aborted request's tool never ran, and no request came after it.
  await expect(page.getByLabel("Review activity")).not.toContainText("read_file");
  expect(llm.requests).toHaveLength(2);
});

test("Cancel the review keeps nothing", async ({ page }) => {
  test.setTimeout(120_000);
  await signUpOrSignIn(page);
  const workspaceId = await workspaceOf(page);
  llm.reset();
  const { reviewUid } = await startScriptedReview(page, llm, workspaceId);
  await page.goto(`/reviews/${reviewUid}`);
  await expect.poll(() => llm.requests.length, { timeout: 30_000 }).toBe(2);
  await page.getByRole("button", { name: "Stop", exact: true }).click();
  await page
    .getByRole("dialog", { name: "Stop this review?" })
    .getByRole("button", { name: "Cancel the review" })
    .click();
  await expect(page.locator('[data-status="cancelled"]').first()).toBeVisible({ timeout: 5000 });
  await expect(page.getByRole("list", { name: "Findings" })).toHaveCount(0);
});
