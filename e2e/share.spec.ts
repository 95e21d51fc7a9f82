import { expect, test } from "@playwright/test";
import { startScriptedServer, type ScriptedServer } from "../server/llm/scripted/server.ts";
import { signUpOrSignIn } from "./support/owner.ts";
import { reportAnswer, startScriptedReview, workspaceOf } from "./support/scripted-review.ts";

// A share link, with the scripted model: a member starts an agent review and makes a read-only link
// in the Share dialog; a spectator — a fresh browser without an account — opens it and watches the
// tool calls and streamed text arrive live, and the chat; the spectator's composer and steering are
// off, and a message forced over the spectator's own socket is refused by the server; once the member
// revokes the link, the spectator's page says it no longer works.

const WORDS = "Now reading the search endpoint that builds its SQL from the request.".split(" ").map((w) => `${w} `);

test("a spectator watches a review live through a share link, read-only, until it is revoked", async ({
  page,
  browser,
}) => {
  test.setTimeout(240_000);
  // Until the spectator is watching, the agent keeps looking around, a step every 1.5 s.
  const llm: ScriptedServer = await startScriptedServer({
    script: [{ toolCalls: [{ name: "list_dir", input: { path: "." } }], delayMs: 1500 }],
  });
  const guest = await browser.newContext();
  try {
    await signUpOrSignIn(page);
    const workspaceId = await workspaceOf(page);
    const { reviewUid } = await startScriptedReview(page, llm, workspaceId);

    // The member makes a 1-day link in the Share dialog; it is shown once, to copy.
    await page.goto(`/reviews/${reviewUid}`);
    await page.getByRole("button", { name: "Share" }).click();
    const dialog = page.getByRole("dialog", { name: "Share this review" });
    await dialog.getByRole("combobox", { name: "Link works for" }).selectOption("1d");
    await dialog.getByRole("button", { name: "Create link" }).click();
    const linkBox = dialog.getByRole("textbox", { name: "New share link" });
    await expect(linkBox).toHaveValue(/\/share\/[A-Za-z0-9_-]{32}$/);
    const link = await linkBox.inputValue();
    await expect(dialog.getByRole("list", { name: "Share links" }).getByRole("listitem")).toHaveCount(1);
    await dialog.getByRole("button", { name: "Done" }).click();

    // The spectator opens it without an account and is counted in the room as a guest.
    const spectator = await guest.newPage();
    await spectator.goto(link);
    await expect(spectator.getByRole("heading", { name: /Review of/ })).toBeVisible();
    await expect(spectator.getByText("read-only link")).toBeVisible();
    await expect(page.getByRole("list", { name: "In this room" }).getByRole("img", { name: /Guest/ })).toBeVisible({
      timeout: 15_000,
    });
    const activity = spectator.getByLabel("Review activity");
    await expect(activity).toContainText("list_dir", { timeout: 30_000 });
    await expect(spectator.getByText("live", { exact: true })).toBeVisible();

    // A teammate's chat message reaches the spectator.
    await page.getByRole("textbox", { name: "Message" }).fill("Watch the search endpoint");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await expect(spectator.getByRole("list", { name: "Chat messages" })).toContainText("Watch the search endpoint", {
      timeout: 15_000,
    });

    // Now, while the spectator watches, the agent greps and streams its text: it arrives live.
    llm.setScript([
      { times: 1, toolCalls: [{ name: "grep", input: { pattern: "execute" } }] },
      { text: [...WORDS, reportAnswer("\n")], chunkDelayMs: 250 },
    ]);
    await expect(activity).toContainText("grep execute", { timeout: 30_000 });
    await expect(activity).toContainText("Now reading the search endpoint", { timeout: 30_000 });

    // The spectator's controls are off, with the reason; steering too while the review runs.
    const composer = spectator.getByRole("textbox", { name: "Message" });
    await expect(composer).toBeDisabled();
    await expect(composer).toHaveAttribute("placeholder", /read-only share link/);
    await expect(spectator.getByRole("textbox", { name: "Hint for the agent" })).toBeDisabled();

    await expect(spectator.locator('[data-status="completed"]')).toBeVisible({ timeout: 60_000 });
    await expect(spectator.getByRole("list", { name: "Findings" })).toContainText("SQL injection in find_items");
    await expect(spectator.getByText("One SQL injection in the item search.")).toBeVisible();
    // No way into the workspace: no code viewer link.
    await expect(spectator.getByRole("link", { name: "Open in code" })).toHaveCount(0);

    // Forced: the composer switched on in the page, a message sent over the spectator's own socket.
    await spectator.evaluate(() => {
      for (const el of document.querySelectorAll("textarea[aria-label='Message'], button[type='submit']"))
        el.removeAttribute("disabled");
    });
    await composer.fill("a spectator forcing a message");
    await spectator.getByRole("button", { name: "Send", exact: true }).click();
    await expect(spectator.getByRole("alert").filter({ hasText: "A share link is read-only" })).toBeVisible();
    await page.waitForTimeout(500);
    await expect(page.getByRole("list", { name: "Chat messages" })).not.toContainText("a spectator forcing a message");

    // The member revokes the link: the spectator's page says it no longer works, at once.
    await page.getByRole("button", { name: "Share" }).click();
    await dialog.getByRole("list", { name: "Share links" }).getByRole("button", { name: "Revoke" }).click();
    await expect(dialog.getByText("None.")).toBeVisible();
    await expect(spectator.getByRole("heading", { name: "This link no longer works" })).toBeVisible({
      timeout: 5_000,
    });
    await expect(spectator.getByRole("alert").filter({ hasText: "This share link was revoked" })).toBeVisible();
    // Opening it again does not work either.
    await spectator.reload();
    await expect(spectator.getByRole("heading", { name: "This link no longer works" })).toBeVisible();
  } finally {
    await guest.close();
    await llm.close();
  }
});
