import { expect, test, type BrowserContext } from "@playwright/test";
import { startScriptedServer, type ScriptedServer } from "../server/llm/scripted/server.ts";
import { signUpOrSignIn } from "./support/owner.ts";
import { inviteTeammate, reportAnswer, startScriptedReview, workspaceOf } from "./support/scripted-review.ts";

// Two members in one review room (scripted model): Ada mentions Bea, picked through the composer's
// autocomplete; Bea's unread badge rises live, her inbox lists the mention, and its link lands her on
// the review at that message. Ada started the review, so she hears that it finished; and when Bea
// replies in a finding's thread Ada wrote in, Ada's inbox links to that reply in the opened finding.

test("a @mention picked in the composer reaches the other member's inbox live and links to the message", async ({
  page,
  browser,
}) => {
  test.setTimeout(180_000);
  const llm: ScriptedServer = await startScriptedServer({
    script: [{ text: reportAnswer() }],
  });
  let member: BrowserContext | undefined;
  try {
    await signUpOrSignIn(page);
    const workspaceId = await workspaceOf(page);
    const teammate = await inviteTeammate(page, browser, workspaceId, "Bea Inboxer");
    member = teammate.context;
    const bea = teammate.page;
    const { reviewUid } = await startScriptedReview(page, llm, workspaceId);

    await page.goto(`/reviews/${reviewUid}`);
    await bea.goto(`/reviews/${reviewUid}`);
    const inRoom = (p: typeof page) => p.getByRole("list", { name: "In this room" });
    await expect(inRoom(page).getByRole("img", { name: /Bea Inboxer/ })).toBeVisible({ timeout: 30_000 });
    await expect(page.locator('[data-status="completed"]')).toBeVisible({ timeout: 60_000 });
    // Ada started the review: its end is in her inbox.
    await expect(page.getByRole("link", { name: /^Inbox \d+ unread$/ })).toBeVisible();

    // Bea's inbox is empty: the sidebar item has no count.
    const beaInbox = bea.getByRole("navigation", { name: "Main" }).getByRole("link", { name: /^Inbox/ });
    await expect(beaInbox).toHaveAccessibleName("Inbox");

    // Ada types "@Be": the member list opens; ↓/↑ move, Enter picks Bea.
    const composer = page.getByRole("textbox", { name: "Message" });
    await composer.click();
    await composer.pressSequentially("Have a look @Be");
    const list = page.getByRole("listbox", { name: "Mention a member" });
    await expect(list.getByRole("option", { name: /Bea Inboxer/ })).toHaveAttribute("aria-selected", "true");
    await expect(list.getByRole("option", { name: /Ada Lovelace/ })).toHaveCount(0);
    await composer.press("ArrowDown");
    await composer.press("Enter");
    await expect(list).toBeHidden();
    await expect(composer).toHaveValue(/^Have a look @\[Bea Inboxer\]\(mention:[A-Za-z0-9_-]+\) $/);
    await composer.pressSequentially("at src/api.py:19");
    await composer.press("Enter");

    // Ada's chat shows the mention as a name chip, not a link.
    const chat = page.getByRole("list", { name: "Chat messages" });
    const chip = chat.locator("[data-mention]").filter({ hasText: "@Bea Inboxer" });
    await expect(chip).toBeVisible();
    await expect(chat.getByRole("link", { name: /Bea Inboxer/ })).toHaveCount(0);

    // Bea's badge rises without a reload.
    await expect(beaInbox).toHaveAccessibleName("Inbox 1 unread", { timeout: 15_000 });

    // Bea opens her inbox (from the end of the review page's chat, so the link must scroll her back).
    await beaInbox.click();
    await expect(bea.getByRole("heading", { name: "Inbox" })).toBeVisible();
    const item = bea.getByRole("list", { name: "Notifications" }).getByRole("link", {
      name: /^Ada Lovelace mentioned you in the review of .+: Have a look @Bea Inboxer at src\/api\.py:19$/,
    });
    await expect(item).toBeVisible();
    const href = await item.getAttribute("href");
    expect(href).toMatch(new RegExp(`^/reviews/${reviewUid}\\?at=\\d+#chat-[0-9a-f-]{36}$`));

    // Keyboard: focus the item, Enter opens it.
    await item.focus();
    await bea.keyboard.press("Enter");
    await expect(bea).toHaveURL(new RegExp(`/reviews/${reviewUid}\\?at=\\d+#chat-`));
    const messageId = href!.split("#chat-")[1]!;
    const landed = bea.locator(`#chat-${messageId}`);
    await expect(landed).toBeVisible({ timeout: 15_000 });
    await expect(landed).toContainText("Have a look @Bea Inboxer at src/api.py:19");
    await expect(landed).toBeInViewport();
    await expect(landed).toHaveAttribute("data-highlight", "true");

    // Opening it marked it read: the badge is gone.
    await expect(beaInbox).toHaveAccessibleName("Inbox");
    await bea.goto("/inbox");
    await expect(bea.getByRole("list", { name: "Notifications" }).getByRole("listitem")).toHaveCount(1);
    await expect(bea.getByRole("button", { name: /^Mark read/ })).toHaveCount(0);
    await expect(bea.getByRole("button", { name: "Mark all read" })).toBeDisabled();

    // A reply in a finding's thread tells who wrote there before: Ada asks, Bea answers.
    const openFinding = async (p: typeof page) => {
      const row = p.getByRole("list", { name: "Findings" }).getByRole("listitem").first();
      await row.getByRole("button", { name: /SQL injection in find_items/ }).click();
      return row;
    };
    // The count as read out (the badge's digits are hidden from screen readers, its "N unread" is not).
    const adaCount = async () => {
      const said = await page
        .getByRole("link", { name: /^Inbox/ })
        .locator(".sr-only")
        .textContent();
      return Number(/^(\d+) unread$/.exec(said ?? "")?.[1] ?? 0);
    };
    const adaRow = await openFinding(page);
    await adaRow.getByRole("textbox", { name: "Reply" }).fill("Is this one real?");
    await adaRow.getByRole("button", { name: "Send", exact: true }).click();
    await expect(adaRow.getByRole("list", { name: "Thread messages" })).toContainText("Is this one real?");
    // Ada's count as the server has it once her page agrees (the review's end may still be on its way).
    const serverCount = async () =>
      (await (await page.request.get("/api/trpc/notifications.unreadCount")).json()).result.data.count as number;
    await expect.poll(async () => (await adaCount()) === (await serverCount()), { timeout: 15_000 }).toBe(true);
    const before = await serverCount();
    await bea.goto(`/reviews/${reviewUid}`);
    const beaRow = await openFinding(bea);
    await expect(beaRow.getByRole("list", { name: "Thread messages" })).toContainText("Is this one real?");
    await beaRow.getByRole("textbox", { name: "Reply" }).fill("Yes: the name goes straight into the SQL.");
    await beaRow.getByRole("button", { name: "Send", exact: true }).click();
    await expect(page.getByRole("link", { name: `Inbox ${before + 1} unread` })).toBeVisible({ timeout: 15_000 });

    // Ada's inbox link opens the review with that finding open, at Bea's message.
    await page.goto("/inbox");
    const reply = page.getByRole("link", {
      name: /^Bea Inboxer replied in the thread on “SQL injection in find_items” in the review of .+: Yes: the name/,
    });
    await reply.click();
    await expect(page).toHaveURL(/[?&]finding=[^&#]+.*#chat-/);
    const replyId = page.url().split("#chat-")[1]!;
    const inThread = page.getByRole("list", { name: "Thread messages" }).locator(`#chat-${replyId}`);
    await expect(inThread).toContainText("Yes: the name goes straight into the SQL.", { timeout: 15_000 });
    await expect(inThread).toBeInViewport();
    // Bea wrote last and is its author: nothing new for her.
    await expect(beaInbox).toHaveAccessibleName("Inbox");
  } finally {
    await member?.close();
    await llm.close();
  }
});
