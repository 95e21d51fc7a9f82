import { expect, test } from "@playwright/test";
import { signUpOrSignIn } from "./support/owner.ts";

// Issue 28, point 3: pages show content at once. The server renders the signed-in frame — the
// navigation and a skeleton where the page's data will come — into the HTML, so the first paint is
// not a blank white page while the scripts load and the session is read. Without any script at all
// the frame is there.
test("the first paint is the app's frame: navigation and a skeleton, before any script runs", async ({
  page,
  browser,
}) => {
  await signUpOrSignIn(page);
  const state = await page.context().storageState();
  const noScript = await browser.newContext({ javaScriptEnabled: false, storageState: state });
  try {
    const p = await noScript.newPage();
    for (const path of ["/", "/projects", "/reviews"]) {
      await p.goto(path);
      const nav = p.getByRole("navigation", { name: "Main" });
      await expect(nav.getByRole("link", { name: "Projects" })).toBeVisible();
      await expect(nav.getByRole("link", { name: "Pipelines" })).toBeVisible();
      await expect(p.getByLabel("Loading").first()).toBeVisible();
    }
    // The page's own link is marked as the current one already.
    await p.goto("/reviews");
    await expect(p.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Reviews" })).toHaveAttribute(
      "aria-current",
      "page",
    );
  } finally {
    await noScript.close();
  }
  // With scripts, the frame becomes the page.
  await page.goto("/projects");
  await expect(page.getByRole("heading", { name: "Projects", level: 1 })).toBeVisible();
  await expect(page.locator('[data-shell="frame"]')).toHaveCount(0);
});
