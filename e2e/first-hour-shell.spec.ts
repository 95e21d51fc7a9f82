import { expect, test } from "@playwright/test";
import { signUpOrSignIn } from "./support/owner.ts";

// Issue 28, point 3: pages show content at once. The server reads the session and renders the
// signed-in shell — the navigation and the page — into the HTML, so the first paint is the page, not
// a blank white page (or a skeleton) while the scripts load and `account.me` is asked for. Without
// any script at all the shell and the dashboard are there; signed out, the server renders the frame
// (navigation and a skeleton) and the browser's script sends the visitor to sign in, as before.
test("the first paint is the signed-in shell with the page, before any script runs", async ({ page, browser }) => {
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
      await expect(p.locator('[data-shell="frame"]')).toHaveCount(0);
    }
    // The dashboard's own content, read on the server with the session.
    await p.goto("/");
    await expect(p.getByRole("heading", { name: "Welcome, Ada", level: 1 })).toBeVisible();
    // Its figures too: the workspace's review prompts (the built-ins) are counted, not "–".
    await expect(p.getByRole("link", { name: /Review prompts/ })).toContainText(/\d+\s*Review prompts/);
    // The page's own link is marked as the current one already.
    await p.goto("/reviews");
    await expect(p.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Reviews" })).toHaveAttribute(
      "aria-current",
      "page",
    );
  } finally {
    await noScript.close();
  }
  // Signed out and without script: the frame, not the app (nothing of the user's is on the page).
  const signedOut = await browser.newContext({ javaScriptEnabled: false });
  try {
    const p = await signedOut.newPage();
    await p.goto("/");
    await expect(p.locator('[data-shell="frame"]')).toHaveCount(1);
    await expect(p.getByLabel("Loading").first()).toBeVisible();
    await expect(p.getByRole("heading", { name: /Welcome/ })).toHaveCount(0);
  } finally {
    await signedOut.close();
  }
  // With scripts, a signed-out visitor is sent to sign in, as before.
  const visitor = await browser.newContext();
  try {
    const p = await visitor.newPage();
    await p.goto("/");
    await expect(p).toHaveURL(/\/sign-in/);
  } finally {
    await visitor.close();
  }
  // With scripts, the shell hydrates into the page.
  await page.goto("/projects");
  await expect(page.getByRole("heading", { name: "Projects", level: 1 })).toBeVisible();
  await expect(page.locator('[data-shell="frame"]')).toHaveCount(0);
});
