import { expect, test, type Page } from "@playwright/test";
import { startScriptedServer, type ScriptedServer } from "../server/llm/scripted/server.ts";
import { signUpOrSignIn } from "./support/owner.ts";
import { inOwnWorkspace } from "./support/own-workspace.ts";
import { reportAnswer, startScriptedReview, trpc, workspaceOf } from "./support/scripted-review.ts";

inOwnWorkspace("Review layout");

// Issue 28, point 4: findings first. On a desktop the report and findings lead, beside the agent's
// live activity, with the chat in a side column (and no empty column for a review without
// activity); on a phone the findings come before the chat; the overall score shows its scale; a
// phone's project page opens at its top.
test.describe.configure({ mode: "serial" });

let llm: ScriptedServer;
let agentReview = "";
let staticReview = "";
let projectUid = "";

test.beforeAll(async () => {
  llm = await startScriptedServer({ script: [{ text: reportAnswer() }] });
});
test.afterAll(async () => {
  await llm?.close();
});

const box = async (page: Page, locator: ReturnType<Page["locator"]>) => {
  await expect(locator).toBeVisible();
  return (await locator.boundingBox())!;
};
const findingsOf = (page: Page) => page.getByRole("list", { name: "Findings" });
const chatOf = (page: Page) => page.getByRole("list", { name: "Chat messages" });
const activityOf = (page: Page) => page.getByLabel("Review activity");

test("an agent review and a static review of the demo project", async ({ page }) => {
  test.setTimeout(180_000);
  await signUpOrSignIn(page);
  const workspaceId = await workspaceOf(page);
  const started = await startScriptedReview(page, llm, workspaceId);
  agentReview = started.reviewUid;
  projectUid = started.projectUid;
  staticReview = (
    await trpc<{ uid: string }>(page.request, "reviews.start", {
      projectUid,
      engine: "static",
      scope: { kind: "project" },
      settings: { verify: false },
    })
  ).uid;
  for (const uid of [agentReview, staticReview]) {
    await page.goto(`/reviews/${uid}`);
    await expect(page.locator('[data-status="completed"]').first()).toBeVisible({ timeout: 90_000 });
  }
});

test.describe("on a desktop", () => {
  test.use({ viewport: { width: 1440, height: 900 } });

  test("the findings lead, beside the agent's activity; the chat is a side column; the score has its scale", async ({
    page,
  }) => {
    await signUpOrSignIn(page);
    await page.goto(`/reviews/${agentReview}`);
    const findings = await box(page, findingsOf(page));
    const activity = await box(page, activityOf(page));
    const chat = await box(page, chatOf(page));
    // Findings on the left, the activity beside them, the chat in the column on the right.
    expect(findings.x).toBeLessThan(activity.x);
    expect(activity.x).toBeLessThan(chat.x);
    // Side by side, not stacked: the activity starts above the findings' end.
    expect(activity.y).toBeLessThan(findings.y + findings.height);
    // The findings section starts on the first screen (at 1440×900).
    const heading = await box(page, page.getByRole("heading", { name: "Findings" }));
    expect(heading.y + heading.height).toBeLessThan(900);
    await expect(page.getByTitle("Overall score (0–100, higher is better)")).toHaveText("55 / 100");
  });

  test("a review without activity gives the report the whole main column: no empty column", async ({ page }) => {
    await signUpOrSignIn(page);
    await page.goto(`/reviews/${staticReview}`);
    const findings = await box(page, findingsOf(page));
    const chat = await box(page, chatOf(page));
    await expect(activityOf(page)).toHaveCount(0);
    expect(findings.x + findings.width).toBeLessThan(chat.x);
    // The findings span the main column (wider than half the page), not a third of it.
    expect(findings.width).toBeGreaterThan(1440 / 2);
    await expect(page.getByTitle("Overall score (0–100, higher is better)")).toHaveText(/^\d+ \/ 100$/);
  });
});

test.describe("on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test("the findings come before the chat", async ({ page }) => {
    await signUpOrSignIn(page);
    await page.goto(`/reviews/${agentReview}`);
    const findings = await box(page, findingsOf(page));
    const chat = await box(page, chatOf(page));
    expect(findings.y).toBeLessThan(chat.y);
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
  });

  test("the project page opens at its top, even with a conversation of one's own on it", async ({ page }) => {
    await signUpOrSignIn(page);
    await trpc(page.request, "ask.ask", { projectUid, question: "Where are items searched?" });
    await page.goto(`/projects/${projectUid}`);
    await expect(page.getByRole("region", { name: "Conversations with Argus" })).toBeVisible({ timeout: 30_000 });
    await expect(page.getByRole("list", { name: "Threads" })).toBeVisible();
    // Give the page time to settle (threads, chat, code): it must not jump down meanwhile.
    await page.waitForTimeout(2000);
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
  });
});
