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
    const welcome = page.getByRole("heading", { name: "Welcome, Ada" });
    const limited = page.getByRole("alert").filter({ hasText: "Too many requests" });
    // Specs that follow each other within the limiter's 10 s window are refused as any user would
    // be; like a user, wait out the window and try again (the refusal itself is tested elsewhere).
    for (let attempt = 0; attempt < 3; attempt++) {
      await page.getByRole("button", { name: "Sign in" }).click();
      await expect(welcome.or(limited)).toBeVisible();
      if (await welcome.isVisible()) break;
      await page.waitForTimeout(10_500);
    }
  }
  await expect(page.getByRole("heading", { name: "Welcome, Ada" })).toBeVisible();
}
