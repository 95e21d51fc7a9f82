import { expect, test, type Page } from "@playwright/test";
import os from "node:os";
import path from "node:path";
import { signUpOrSignIn } from "./support/owner.ts";

// Several workspaces from the owner's side: create a second one from the sidebar, switch between
// them (by mouse, keyboard and link), invite a teammate into the new one and remove them again.
// Runs alone or after the other specs (same server); it switches the owner back at the end.
test.describe.configure({ mode: "serial" });

const ownerState = path.join(os.tmpdir(), `argus-e2e-workspaces-${process.pid}.json`);
const teammate = { name: "Grace Hopper", email: "grace@example.com", password: "compiler-a0-1952" };
const NEW_WORKSPACE = "Research lab";
let firstWorkspace = "";
let inviteUrl = "";

const switcher = (page: Page) => page.getByTestId("workspace-switcher");
const nav = (page: Page, name: string) =>
  page.getByRole("navigation", { name: "Main" }).getByRole("link", { name }).click();

test("the owner is signed in", async ({ page }) => {
  await signUpOrSignIn(page);
  firstWorkspace = (await switcher(page).locator("span.font-medium").first().textContent())!.trim();
  expect(firstWorkspace).not.toBe("");
  await page.context().storageState({ path: ownerState });
});

test.describe("signed in as the owner", () => {
  test.use({ storageState: ownerState });

  test("create a second workspace from the sidebar; it becomes current", async ({ page }) => {
    await page.goto("/prompts");
    await switcher(page).click();
    await page.getByRole("menuitem", { name: "New workspace…" }).click();
    await expect(page).toHaveURL(/\/prompts\?new-workspace$/);
    const dialog = page.getByRole("dialog", { name: "New workspace" });
    // An empty name is explained, not sent blindly.
    await dialog.getByRole("button", { name: "Create workspace" }).click();
    await expect(dialog.getByRole("alert")).toHaveText("Give the workspace a name.");
    await dialog.getByRole("textbox", { name: "Name" }).fill(NEW_WORKSPACE);
    await dialog.getByRole("button", { name: "Create workspace" }).click();
    await expect(page).toHaveURL(/\/$/);
    await expect(switcher(page)).toContainText(NEW_WORKSPACE);
    await expect(switcher(page)).toContainText("Owner");
    // It has its own built-in prompts.
    await nav(page, "Prompts");
    await expect(page.getByRole("list", { name: "Prompts" }).getByRole("listitem").first()).toBeVisible();
    // The dialog is a link of its own.
    await page.goto("/settings?new-workspace");
    // (The dialog element itself has no box: its panel is fixed-positioned. Its title is what shows.)
    await expect(page.getByRole("dialog").getByRole("heading", { name: "New workspace" })).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(page).toHaveURL(/\/settings$/);
  });

  test("switch with the keyboard, and by a ?workspace= link; the choice survives a reload", async ({ page }) => {
    await page.goto("/");
    await expect(switcher(page)).toContainText(NEW_WORKSPACE);
    await switcher(page).focus();
    await page.keyboard.press("Enter");
    const menu = page.getByRole("menu");
    await expect(menu.getByRole("menuitem", { name: new RegExp(NEW_WORKSPACE) })).toHaveAttribute(
      "aria-current",
      "true",
    );
    // Items are oldest first: the owner's first workspace, then the new one. Enter opened the menu on
    // the first; down and up again come back to it, and Enter picks it.
    await expect(menu.getByRole("menuitem").first()).toContainText(firstWorkspace);
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("Enter");
    await expect(switcher(page)).toContainText(firstWorkspace);
    await expect(page.getByRole("heading", { name: /^Welcome/ }).locator("..")).toContainText(firstWorkspace);
    await page.reload();
    await expect(switcher(page)).toContainText(firstWorkspace);

    // A link naming the new workspace switches to it and drops the parameter.
    const me = await (await page.request.get("/api/trpc/account.me")).json();
    const target = (me.result.data.workspaces as { id: string; name: string }[]).find((w) => w.name === NEW_WORKSPACE)!;
    await page.goto(`/settings?workspace=${target.id}#members`);
    await expect(switcher(page)).toContainText(NEW_WORKSPACE);
    await expect(page).toHaveURL(/\/settings#members$/);
    await expect(page.getByRole("region", { name: "Members" })).toContainText("Only you so far.");
  });

  test("invite a teammate into the new workspace; they join it as a member", async ({ page, browser }) => {
    await page.goto("/settings");
    await expect(switcher(page)).toContainText(NEW_WORKSPACE);
    await expect(page.getByText(`Each link adds one person to ${NEW_WORKSPACE}`)).toBeVisible();
    await page.getByLabel("Role", { exact: true }).selectOption("member");
    await page.getByRole("button", { name: "Create invite link" }).click();
    inviteUrl = (await page.getByTestId("invite-url").first().textContent())!.trim();
    expect(inviteUrl).toContain("/invite/");

    // A fresh browser (contexts made in this block would otherwise get the owner's session).
    const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
    const other = await context.newPage();
    await other.goto(inviteUrl);
    await expect(other.getByRole("heading", { name: `Join ${NEW_WORKSPACE} as a member` })).toBeVisible();
    await other.getByRole("textbox", { name: "Name", exact: true }).fill(teammate.name);
    await other.getByLabel("Email").fill(teammate.email);
    await other.getByLabel("Password").fill(teammate.password);
    await other.getByRole("button", { name: /create account and join/i }).click();
    await expect(other.getByRole("heading", { name: "Welcome, Grace" })).toBeVisible();
    await expect(switcher(other)).toContainText(NEW_WORKSPACE);
    await expect(switcher(other)).toContainText("Member");
    await context.storageState({ path: `${ownerState}.teammate` });
    await context.close();

    await page.reload();
    const members = page.getByRole("list", { name: "Members" });
    await expect(members.getByRole("listitem").filter({ hasText: teammate.email })).toBeVisible();
  });

  test("remove the teammate from Settings → Members; they lose the workspace at once", async ({ page, browser }) => {
    const context = await browser.newContext({ storageState: `${ownerState}.teammate` });
    const other = await context.newPage();
    await other.goto("/projects");
    await expect(switcher(other)).toContainText(NEW_WORKSPACE);

    await page.goto("/settings#members");
    const row = page.getByRole("list", { name: "Members" }).getByRole("listitem").filter({ hasText: teammate.email });
    await row.getByRole("button", { name: `Remove ${teammate.name}` }).click();
    const confirm = page.getByRole("dialog", { name: `Remove ${teammate.name}?` });
    await expect(confirm).toContainText("loses access");
    await confirm.getByRole("button", { name: "Remove member" }).click();
    await expect(page.getByText(`${teammate.name} was removed.`)).toBeVisible();
    await expect(page.getByRole("list", { name: "Members" })).not.toContainText(teammate.email);
    await expect(page.getByRole("region", { name: "Members" })).toContainText("Only you so far.");

    // The teammate's next request is refused; reloaded, the app says they are in no workspace.
    await other.reload();
    await expect(other.getByText("Your account is not a member of any workspace.")).toBeVisible();
    await context.close();

    // The last owner cannot leave; the reason says what to do.
    await page.getByRole("button", { name: "Leave workspace" }).click();
    await page
      .getByRole("dialog", { name: `Leave ${NEW_WORKSPACE}?` })
      .getByRole("button", { name: "Leave workspace" })
      .click();
    await expect(
      page.getByText(/You are the only owner of “Research lab”: make someone else an owner first/),
    ).toBeVisible();

    // Back to the first workspace, as the other specs expect.
    await switcher(page).click();
    await page.getByRole("menuitem", { name: new RegExp(firstWorkspace) }).click();
    await expect(switcher(page)).toContainText(firstWorkspace);
  });
});
