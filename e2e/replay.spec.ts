import { expect, test, type Page } from "@playwright/test";
import { startScriptedServer, type ScriptedServer } from "../server/llm/scripted/server.ts";
import { signUpOrSignIn } from "./support/owner.ts";
import { query, reportAnswer, startScriptedReview, workspaceOf } from "./support/scripted-review.ts";

// A finished agent review replayed from its room log (the scripted model reads src/pricing.js, greps
// for cursor.execute, reads src/api.py, then reports): scrub to a moment, a ?at=<seq> reload shows the
// same moment, "next tool call" moves to the next call, keys play / pause and step, and Follow shows
// the file the agent read at the moment shown.

interface Ev {
  seq: number;
  type: string;
  payload: { name?: string; input?: Record<string, unknown> };
}

const slider = (page: Page) => page.getByRole("slider", { name: "Replay position" });
const activity = (page: Page) => page.getByLabel("Review activity");
/** Keys go to the page, not to the button clicked last (Space would press it). */
const blur = (page: Page) => page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
const followed = (page: Page) => page.getByRole("region", { name: "Following the agent" });

test("a finished review replays: scrub, ?at= deep link, next tool call, keys, and Follow", async ({ page }) => {
  test.setTimeout(240_000);
  const llm: ScriptedServer = await startScriptedServer({
    script: [
      // First matching rule wins (by the last user message, i.e. the latest tool result).
      { match: "review it critically", text: reportAnswer() },
      { match: "def find_items", text: reportAnswer("Found it.\n"), delayMs: 200 },
      {
        match: "SELECT id, name",
        toolCalls: [{ name: "read_file", input: { path: "src/api.py", start_line: 15, end_line: 20 } }],
        delayMs: 200,
      },
      {
        match: "function basketTotal",
        toolCalls: [{ name: "grep", input: { pattern: "cursor.execute", path: "src" } }],
        delayMs: 200,
      },
      {
        match: "Review scope",
        toolCalls: [{ name: "read_file", input: { path: "src/pricing.js", start_line: 4, end_line: 10 } }],
      },
    ],
  });
  try {
    await signUpOrSignIn(page);
    const workspaceId = await workspaceOf(page);
    const { reviewUid } = await startScriptedReview(page, llm, workspaceId);
    await expect
      .poll(async () => (await query<{ status: string }>(page.request, "reviews.get", { uid: reviewUid })).status, {
        timeout: 90_000,
      })
      .toBe("completed");

    // The moments that matter, from the persisted log.
    const log = await query<Ev[]>(page.request, "reviews.events", { uid: reviewUid });
    const calls = log.filter((e) => e.type === "tool_call");
    expect(calls.map((c) => c.payload.name)).toEqual(["read_file", "grep", "read_file"]);
    const [readPricing, grep, readApi] = calls as [Ev, Ev, Ev];
    const pricingResult = log.find((e) => e.type === "tool_result" && e.seq > readPricing.seq)!;
    const indexOf = (seq: number) => log.findIndex((e) => e.seq === seq) + 1; // events shown at that seq

    // Opened without ?at: the end, with the finding.
    await page.goto(`/reviews/${reviewUid}`);
    // (The whole log is read first: allow for a slow machine.)
    await expect(page.getByRole("toolbar", { name: "Replay" })).toBeVisible({ timeout: 30_000 });
    await expect(slider(page)).toHaveValue(String(log.length));
    await expect(page.getByRole("list", { name: "Findings" })).toContainText("SQL injection in find_items");

    // Scrub to just after the first read: its call and result are shown, the grep is not yet, and no
    // finding had been reported then. The address names the moment.
    await slider(page).fill(String(indexOf(pricingResult.seq)));
    await expect(activity(page)).toContainText("read_file src/pricing.js");
    await expect(activity(page)).not.toContainText("grep");
    await expect(page.getByLabel("Findings at this moment")).toContainText("reported 0 of 1 findings");
    await expect(page.getByText("The agent had not reported any finding yet at this moment")).toBeVisible();
    await expect(page).toHaveURL(new RegExp(`[?&]at=${pricingResult.seq}(&|$)`));

    // Reloading the copied address shows the same moment.
    await page.reload();
    await expect(slider(page)).toHaveValue(String(indexOf(pricingResult.seq)), { timeout: 30_000 });
    await expect(activity(page)).toContainText("read_file src/pricing.js");
    await expect(activity(page)).not.toContainText("grep");

    // Follow (off by default) shows the file read at this moment, its lines marked.
    const follow = page.getByRole("button", { name: "Follow" });
    await expect(follow).toHaveAttribute("aria-pressed", "false");
    await expect(followed(page)).toHaveCount(0);
    await follow.click();
    await expect(followed(page).locator("[data-follow-path]")).toHaveText("src/pricing.js");
    await expect(followed(page).locator("tr[data-marked]")).toHaveCount(7); // lines 4–10
    await expect(followed(page).locator("tr[data-marked]").first()).toContainText("function basketTotal");

    // Next tool call: the grep (its hits not in yet, so Follow still shows the file read before).
    await page.getByRole("button", { name: "Next tool call" }).click();
    await expect(slider(page)).toHaveValue(String(indexOf(grep.seq)));
    await expect(activity(page)).toContainText("grep cursor.execute");
    await expect(page).toHaveURL(new RegExp(`[?&]at=${grep.seq}(&|$)`));
    // → steps one event on; once the grep's result is in, Follow moves to its first hit.
    await blur(page);
    await page.keyboard.press("ArrowRight");
    await expect(slider(page)).toHaveValue(String(indexOf(grep.seq) + 1));
    const grepResult = log.find((e) => e.type === "tool_result" && e.seq > grep.seq)!;
    await slider(page).fill(String(indexOf(grepResult.seq)));
    await expect(followed(page).locator("[data-follow-path]")).toHaveText("src/api.py");
    await expect(followed(page).locator("tr[data-marked]")).toContainText(["cursor.execute"]);

    // Next tool call again: the read of src/api.py 15–20, followed.
    await page.getByRole("button", { name: "Next tool call" }).click();
    await expect(slider(page)).toHaveValue(String(indexOf(readApi.seq)));
    await expect(followed(page).locator("tr[data-marked]")).toHaveCount(6);
    await expect(followed(page).locator("tr[data-marked]").nth(1)).toContainText("def find_items");
    await expect(page.getByRole("button", { name: "Next tool call" })).toBeDisabled();

    // ← steps back one event.
    await blur(page);
    await page.keyboard.press("ArrowLeft");
    await expect(slider(page)).toHaveValue(String(indexOf(readApi.seq) - 1));
    // Space plays from the start and pauses; the paused moment holds.
    await slider(page).fill("0");
    await blur(page);
    await page.keyboard.press("Space");
    await expect(page.getByRole("button", { name: "Pause replay" })).toBeVisible();
    await page.keyboard.press("Space");
    await expect(page.getByRole("button", { name: "Play replay" })).toBeVisible();
    const held = await slider(page).inputValue();
    await page.waitForTimeout(1000);
    expect(await slider(page).inputValue()).toBe(held);
    await page.getByRole("button", { name: "10×" }).click();
    await page.getByRole("button", { name: "Play replay" }).click();
    // At 10× the rest of this short replay plays out to the end, with the finding.
    await expect(slider(page)).toHaveValue(String(log.length), { timeout: 15_000 });
    await expect(page.getByRole("button", { name: "Play replay" })).toBeVisible();
    await expect(page.getByRole("list", { name: "Findings" })).toContainText("SQL injection in find_items");

    // Follow is remembered for this user after a reload.
    await page.goto(`/reviews/${reviewUid}?at=${readPricing.seq}`);
    await expect(page.getByRole("button", { name: "Follow" })).toHaveAttribute("aria-pressed", "true");
    await expect(followed(page).locator("[data-follow-path]")).toHaveText("src/pricing.js", { timeout: 30_000 });
  } finally {
    await llm.close();
  }
});
