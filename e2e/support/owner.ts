import { expect, type Page } from "@playwright/test";

/** The owner every spec acts as; foundation.spec.ts creates it on a fresh server. */
export const OWNER = { name: "Ada Lovelace", email: "ada@example.com", password: "correct-horse-battery" };

/** The e2e server's preset setup token (playwright.config.ts sets SETUP_TOKEN), as in an automated install. */
export const SETUP_TOKEN = "e2e-setup-token-0123456789";
export const SETUP_PATH = `/sign-up?setup=${SETUP_TOKEN}`;

/**
 * Creates the owner account if Argus is not set up yet (a spec run alone), else signs in with it
 * (after foundation.spec.ts). Sign-in is rate limited (a few per 10 s), so specs call this once and
 * reuse the session (storageState) for their other tests.
 */
export async function signUpOrSignIn(page: Page): Promise<void> {
  await page.goto(SETUP_PATH);
  const setUp = page.getByRole("heading", { name: "Set up Argus" });
  const already = page.getByRole("heading", { name: "Argus is already set up" });
  await expect(setUp.or(already)).toBeVisible();
  if (await setUp.isVisible()) {
    await page.getByRole("textbox", { name: "Name", exact: true }).fill(OWNER.name);
    await page.getByLabel("Email").fill(OWNER.email);
    await page.getByLabel("Password").fill(OWNER.password);
    await page.getByRole("button", { name: /create owner account/i }).click();
  } else {
    await page.goto("/sign-in");
    await page.getByLabel("Email").fill(OWNER.email);
    await page.getByLabel("Password").fill(OWNER.password);
    await page.getByRole("button", { name: "Sign in" }).click();
  }
  await expect(page.getByRole("heading", { name: "Welcome, Ada" })).toBeVisible();
}
