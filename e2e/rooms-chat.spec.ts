import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { signUpOrSignIn } from "./support/owner.ts";

// Team chat beyond the review page: two members on a project page see each other, one sees the other
// typing, a message and a reaction from one show for the other; the same panel on a knowledge base
// page; "hide my position" holds across a reload (it is stored on the server).

async function trpc<T>(request: APIRequestContext, path: string, input: unknown): Promise<T> {
  const res = await request.post(`/api/trpc/${path}`, { data: input });
  expect(res.status(), `${path}: ${await res.text()}`).toBe(200);
  return (await res.json()).result.data as T;
}

const chatOf = (p: Page) => p.getByRole("list", { name: "Chat messages" });
const inRoom = (p: Page) => p.getByRole("list", { name: "In this room" });

test("two members chat in a project room and a knowledge-base room: typing, messages, reactions", async ({
  page,
  browser,
}) => {
  test.setTimeout(240_000);
  const member = await browser.newContext();
  try {
    await signUpOrSignIn(page);
    const me = await page.request.get("/api/trpc/account.me");
    const workspaceId = (await me.json()).result.data.workspaces[0].id as string;
    const invite = await trpc<{ token: string }>(page.request, "account.createInvite", { workspaceId, role: "member" });
    const bea = await member.newPage();
    await trpc(bea.request, "account.signUp", {
      name: "Bea Teammate",
      email: `bea-chat-${Date.now()}@example.com`,
      password: "correct-horse-battery",
      inviteToken: invite.token,
    });
    const projectUid = crypto.randomUUID();
    await trpc(page.request, "projects.create", {
      workspaceId,
      uid: projectUid,
      name: `Chat ${projectUid.slice(0, 6)}`,
    });

    await page.goto(`/projects/${projectUid}`);
    await bea.goto(`/projects/${projectUid}`);
    await expect(inRoom(page).getByRole("img", { name: /Bea Teammate/ })).toBeVisible({ timeout: 30_000 });
    await expect(inRoom(bea).getByRole("img", { name: /Ada Lovelace/ })).toBeVisible();

    // Ada types: Bea sees it; it goes away when Ada's message arrives.
    const typing = bea.getByTestId("typing");
    await page.getByRole("textbox", { name: "Message" }).pressSequentially("Shall we ship", { delay: 40 });
    await expect(typing).toHaveText("Ada Lovelace is typing…");
    await page.getByRole("textbox", { name: "Message" }).pressSequentially(" on Friday?");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await expect(chatOf(bea)).toContainText("Shall we ship on Friday?");
    await expect(typing).toHaveText("");
    // The sender never sees herself typing.
    await expect(page.getByTestId("typing")).toHaveText("");

    // Bea reacts from the keyboard: the menu opens on the first emoji, arrows move, Enter picks.
    const message = bea.locator("[data-message]").filter({ hasText: "Shall we ship on Friday?" });
    await message.getByRole("button", { name: "Add reaction" }).focus();
    await bea.keyboard.press("Enter");
    const menu = bea.getByRole("menu", { name: "Reactions to choose from" });
    await expect(menu.getByRole("menuitem", { name: "thumbs up" })).toBeFocused();
    await bea.keyboard.press("ArrowRight");
    await bea.keyboard.press("ArrowRight");
    await expect(menu.getByRole("menuitem", { name: "party" })).toBeFocused();
    await bea.keyboard.press("Enter");
    await expect(menu).toBeHidden();
    await expect(message.getByRole("button", { name: "party: 1, by you" })).toHaveAttribute("aria-pressed", "true");

    // Ada sees it with who reacted, not as hers; she adds hers by clicking it.
    const adas = page.locator("[data-message]").filter({ hasText: "Shall we ship on Friday?" });
    const chip = adas.getByRole("button", { name: "party: 1, by Bea Teammate" });
    await expect(chip).toHaveAttribute("aria-pressed", "false");
    await chip.click();
    await expect(adas.getByRole("button", { name: "party: 2, by Bea Teammate, you" })).toHaveAttribute(
      "aria-pressed",
      "true",
    );
    await expect(message.getByRole("button", { name: "party: 2, by you, Ada Lovelace" })).toBeVisible();

    // A reload (a late joiner) shows the same counts.
    await bea.reload();
    await expect(
      bea.locator("[data-message]").getByRole("button", { name: "party: 2, by you, Ada Lovelace" }),
    ).toBeVisible({ timeout: 30_000 });

    // "Hide my position" is stored on the server: still on after a reload.
    const hide = page.getByRole("button", { name: "Hide my position" });
    await expect(hide).toHaveAttribute("aria-pressed", "false");
    await hide.click();
    await expect(hide).toHaveAttribute("aria-pressed", "true");
    await page.reload();
    await expect(page.getByRole("button", { name: "Hide my position" })).toHaveAttribute("aria-pressed", "true");
    await page.getByRole("button", { name: "Hide my position" }).click();
    await expect(page.getByRole("button", { name: "Hide my position" })).toHaveAttribute("aria-pressed", "false");

    // The same panel on a knowledge base page: its own room, its own messages.
    const base = await trpc<{ uid: string }>(page.request, "knowledge.create", {
      workspaceId,
      name: `Chat base ${Date.now()}`,
    });
    await page.goto(`/knowledge/${base.uid}`);
    await bea.goto(`/knowledge/${base.uid}`);
    await expect(inRoom(page).getByRole("img", { name: /Bea Teammate/ })).toBeVisible({ timeout: 30_000 });
    await expect(chatOf(page)).toContainText("No messages yet");
    await bea.getByRole("textbox", { name: "Message" }).pressSequentially("Which documents are missing?", {
      delay: 20,
    });
    await expect(page.getByTestId("typing")).toHaveText("Bea Teammate is typing…");
    await bea.getByRole("button", { name: "Send", exact: true }).click();
    await expect(chatOf(page)).toContainText("Which documents are missing?");
    await expect(chatOf(page)).not.toContainText("Shall we ship");
    const kbMessage = page.locator("[data-message]").filter({ hasText: "Which documents are missing?" });
    await kbMessage.getByRole("button", { name: "Add reaction" }).click();
    await page.getByRole("menuitem", { name: "eyes" }).click();
    await expect(bea.locator("[data-message]").getByRole("button", { name: "eyes: 1, by Ada Lovelace" })).toBeVisible();
  } finally {
    await member.close();
  }
});
