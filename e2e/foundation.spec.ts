import { expect, test, type Page } from "@playwright/test";
import os from "node:os";
import path from "node:path";
import { startScriptedServer, type ScriptedServer } from "../server/llm/scripted/server.ts";
import { OWNER, SETUP_PATH } from "./support/owner.ts";

// One story, in order: the first visitor sets Argus up, works with projects and prompts, invites a
// read-only viewer, and the viewer is refused an edit.
test.describe.configure({ mode: "serial" });

const owner = OWNER;
const viewer = { name: "Charles Babbage", email: "charles@example.com", password: "difference-engine-2" };
let viewerInviteUrl = "";
// The owner's session, saved at sign-up and reused: signing in before every test would trip the
// sign-in rate limit (a few attempts per 10 s in production mode), as it should.
const ownerState = path.join(os.tmpdir(), `argus-e2e-owner-${process.pid}.json`);

async function signUp(page: Page, who: typeof owner, button: RegExp) {
  await page.getByRole("textbox", { name: "Name", exact: true }).fill(who.name);
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: button }).click();
}

const nav = (page: Page, name: string) =>
  page.getByRole("navigation", { name: "Main" }).getByRole("link", { name }).click();

async function backToPrompts(page: Page) {
  await page.getByRole("link", { name: "← Prompts" }).click();
  await expect(page).toHaveURL(/\/prompts$/);
}

async function defaultBadges(page: Page) {
  return page.getByRole("list", { name: "Prompts" }).getByRole("listitem").filter({ hasText: "Default" });
}

test("the setup link creates the owner account; without it the page says where to find it", async ({ page }) => {
  await page.goto("/");
  await expect(page).toHaveURL(/\/sign-up$/);
  await expect(page.getByRole("heading", { name: "Set up Argus" })).toBeVisible();
  await expect(page.getByText("Open the setup link printed in the server log")).toBeVisible();
  await expect(page.getByRole("button", { name: /create owner account/i })).toHaveCount(0);

  // A wrong (or stale) link is refused with what to do.
  await page.goto("/sign-up?setup=not-the-setup-token-0000");
  await signUp(page, owner, /create owner account/i);
  await expect(
    page.getByRole("alert").filter({ hasText: "Open the setup link printed in the server log" }),
  ).toBeVisible();

  await page.goto(SETUP_PATH);
  await signUp(page, owner, /create owner account/i);
  await expect(page.getByRole("heading", { name: "Welcome, Ada" })).toBeVisible();
  await page.context().storageState({ path: ownerState });

  // A second visitor without an invite cannot create another account.
  const other = await page.context().browser()!.newContext();
  const p2 = await other.newPage();
  await p2.goto("/sign-up");
  await expect(p2.getByRole("heading", { name: "Argus is already set up" })).toBeVisible();
  await other.close();
});

test("sign out and sign in again; bad password is explained", async ({ page }) => {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(owner.email);
  await page.getByLabel("Password").fill("wrong-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("That email and password don't match an account.")).toBeVisible();
  await page.getByLabel("Password").fill(owner.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Welcome, Ada" })).toBeVisible();
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in/);
  await page.goto("/projects");
  await expect(page).toHaveURL(/\/sign-in\?next=%2Fprojects/);
});

test.describe("signed in as the owner", () => {
  test.use({ storageState: ownerState });
  test.beforeEach(async ({ page }) => {
    await page.goto("/");
    await expect(page.getByRole("heading", { name: "Welcome, Ada" })).toBeVisible();
  });

  test("create, rename and keep a project", async ({ page }) => {
    await nav(page, "Projects");
    await expect(page.getByText("No projects yet")).toBeVisible();
    await page.getByRole("button", { name: "New project" }).first().click();
    await page.getByRole("textbox", { name: "Name", exact: true }).fill("payments-service");
    await page.getByRole("button", { name: "Create project" }).click();
    // A new project opens on its page, its import first; the list has it.
    await expect(page.getByRole("heading", { name: "payments-service", level: 1 })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Import code" })).toBeVisible();
    await nav(page, "Projects");
    const list = page.getByRole("list", { name: "Projects" });
    await expect(list.getByRole("link", { name: "payments-service" })).toBeVisible();

    await page.getByRole("button", { name: "Rename payments-service" }).click();
    await page.getByRole("textbox", { name: "Name", exact: true }).fill("payments-api");
    await page.getByRole("button", { name: "Save" }).click();
    await expect(list.getByRole("link", { name: "payments-api" })).toBeVisible();

    await page.reload();
    await expect(
      page.getByRole("list", { name: "Projects" }).getByRole("link", { name: "payments-api" }),
    ).toBeVisible();
    await page.getByRole("link", { name: "payments-api" }).click();
    await expect(page.getByRole("heading", { name: "payments-api" })).toBeVisible();

    // Import two files; the snapshot gets indexed and its code can be browsed by file and line.
    await page.getByLabel("Files", { exact: true }).setInputFiles([
      {
        name: "app.ts",
        mimeType: "text/plain",
        buffer: Buffer.from("export function greet(name: string) {\n  return `hi ${name}`;\n}\n"),
      },
      { name: "util.py", mimeType: "text/plain", buffer: Buffer.from("def add(a, b):\n    return a + b\n") },
    ]);
    const files = page.getByRole("list", { name: "Files" });
    await expect(files.getByRole("link", { name: "util.py" })).toBeVisible({ timeout: 30_000 });
    await expect(page.getByLabel("Language mix")).toContainText("2 files");
    await files.getByRole("link", { name: "app.ts" }).click();
    await expect(page.getByRole("list", { name: "Outline" })).toContainText("greet");
    await page.getByRole("list", { name: "Outline" }).getByRole("link").first().click();
    await expect(page).toHaveURL(/file=app.ts&line=1$/);
    await page.reload();
    await expect(page.locator("#L1")).toContainText("export function greet");

    // Search the code and follow a hit to its file and line.
    await page.getByLabel("Search the code").fill("add");
    const hit = page.getByRole("list", { name: "Search results" }).getByRole("link").first();
    await expect(hit).toContainText("util.py:1");
    await hit.click();
    await expect(page).toHaveURL(/file=util.py&line=1$/);
    await expect(page.locator("#L1")).toContainText("def add");
  });

  test("create a prompt, make it the default, and the single-default invariant holds after reload", async ({
    page,
  }) => {
    await nav(page, "Prompts");
    // The built-ins were seeded; one of them starts as the default.
    await expect(page.getByRole("link", { name: "General code review" })).toBeVisible();
    await expect(await defaultBadges(page)).toHaveCount(1);

    await page.getByRole("button", { name: "New prompt" }).click();
    await page.getByRole("textbox", { name: "Name", exact: true }).fill("Team conventions");
    await page
      .getByLabel("Prompt", { exact: true })
      .fill("Review against our team's conventions: small functions, no any.");
    await page.getByLabel("Use as the default for new reviews").check();
    await page.getByRole("button", { name: "Create prompt" }).click();
    await expect(page.getByRole("heading", { name: "Team conventions" })).toBeVisible();
    await expect(page.getByText("Default", { exact: true })).toBeVisible();

    await backToPrompts(page);
    await page.reload();
    const defaults = await defaultBadges(page);
    await expect(defaults).toHaveCount(1);
    await expect(defaults).toContainText("Team conventions");

    // Deleting the default is refused with a reason.
    await page.getByRole("link", { name: "Team conventions" }).click();
    await page.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("button", { name: "Delete prompt" }).click();
    await expect(page.getByText(/This is the default review prompt/)).toBeVisible();

    // Editing bumps the version.
    await page.getByRole("button", { name: "Edit" }).click();
    await page.getByLabel("Prompt", { exact: true }).fill("Review against our conventions. Version two.");
    await page.getByRole("button", { name: "Save" }).click();
    await expect(page.getByText(/Version 2/)).toBeVisible();

    // Switching the default to a built-in moves the badge; still exactly one after reload.
    await backToPrompts(page);
    await page.getByRole("link", { name: "Security audit" }).click();
    await expect(page.getByRole("button", { name: "Edit" })).toHaveCount(0); // built-ins are read-only
    await page.getByRole("button", { name: "Set as default" }).click();
    await expect(page.getByRole("button", { name: "Unset default" })).toBeVisible();
    await backToPrompts(page);
    await page.reload();
    await expect(await defaultBadges(page)).toHaveCount(1);
    await expect(await defaultBadges(page)).toContainText("Security audit");
  });

  test("theme choice survives a reload", async ({ page }) => {
    await page.getByRole("radio", { name: "Dark" }).first().click();
    await expect(page.locator("html")).toHaveClass(/dark/);
    await page.reload();
    await expect(page.locator("html")).toHaveClass(/dark/);
    await page.getByRole("radio", { name: "Light" }).first().click();
    await expect(page.locator("html")).not.toHaveClass(/dark/);
  });

  test("add a model provider, test the connection, and the key is never shown again", async ({ page }) => {
    const llm: ScriptedServer = await startScriptedServer({
      script: [{ match: "Reply with the single word OK", text: "OK" }],
    });
    try {
      await nav(page, "Settings");
      await page.getByRole("button", { name: "Add provider" }).click();
      const dialog = page.getByRole("dialog");
      await dialog.getByLabel("Provider", { exact: true }).selectOption("openai-compatible");
      await dialog.getByRole("textbox", { name: "Name", exact: true }).fill("Local scripted");
      await dialog.getByLabel("Base URL").fill(llm.openaiBaseURL);
      await dialog.getByLabel("Model").fill("qwen3:8b");
      await dialog.getByLabel("API key").fill("sk-local-secret-1234");
      await dialog.getByRole("button", { name: "Test connection" }).click();
      await expect(dialog.getByRole("status")).toContainText("Connected to qwen3:8b");
      await dialog.getByRole("button", { name: "Save" }).click();
      const row = page
        .getByRole("list", { name: "Model providers" })
        .getByRole("listitem")
        .filter({ hasText: "Local scripted" });
      await expect(row).toContainText("key …1234");
      await page.reload();
      await expect(page.getByRole("list", { name: "Model providers" })).toContainText("Local scripted");
      expect(await page.content()).not.toContain("sk-local-secret");
    } finally {
      await llm.close();
    }
  });

  test("create a viewer invite link", async ({ page }) => {
    await nav(page, "Settings");
    await page.getByLabel("Role").selectOption("viewer");
    await page.getByRole("button", { name: "Create invite link" }).click();
    const url = page.getByTestId("invite-url").first();
    await expect(url).toContainText("/invite/");
    viewerInviteUrl = (await url.textContent())!.trim();
  });
});

test("a viewer joins through the invite and is refused an edit", async ({ browser }) => {
  expect(viewerInviteUrl).toContain("/invite/");
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(viewerInviteUrl);
  await expect(page.getByRole("heading", { name: /^Join .+ as a read-only viewer$/ })).toBeVisible();
  await signUp(page, viewer, /create account and join/i);
  await expect(page.getByRole("heading", { name: "Welcome, Charles" })).toBeVisible();
  await expect(page.getByText("Read-only")).toBeVisible();

  // The UI offers no edits…
  await nav(page, "Prompts");
  await expect(page.getByRole("link", { name: "Team conventions" })).toBeVisible();
  await expect(page.getByRole("button", { name: "New prompt" })).toHaveCount(0);
  await page.getByRole("link", { name: "Team conventions" }).click();
  await expect(page.getByTestId("prompt-content")).toContainText("Version two");
  await expect(page.getByRole("button", { name: "Edit" })).toHaveCount(0);

  // …and the server refuses one sent anyway, with the viewer's own session.
  const uid = page.url().split("/").pop()!;
  const response = await page.evaluate(async (uid) => {
    const res = await fetch("/api/trpc/prompts.update", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ uid, content: "hijacked" }),
    });
    return { status: res.status, body: await res.json() };
  }, uid);
  expect(response.status).toBe(403);
  expect(response.body.error.message).toContain("read-only viewer");
  await page.reload();
  await expect(page.getByTestId("prompt-content")).toContainText("Version two");

  // The invite link is spent.
  const again = await browser.newContext();
  const p3 = await again.newPage();
  await p3.goto(viewerInviteUrl);
  await expect(p3.getByText("This invite can't be used")).toBeVisible();
  await again.close();
  await context.close();
});
