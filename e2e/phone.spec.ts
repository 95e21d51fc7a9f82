import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { signUpOrSignIn } from "./support/owner.ts";

// Argus on a phone (390 × 844): no main page scrolls sideways, and the sidebar is a menu that opens,
// keeps focus inside, closes with Esc and navigates.

test.use({ viewport: { width: 390, height: 844 } });

async function trpc<T>(request: APIRequestContext, path: string, input: unknown): Promise<T> {
  const res = await request.post(`/api/trpc/${path}`, { data: input });
  expect(res.status(), `${path}: ${await res.text()}`).toBe(200);
  return (await res.json()).result.data as T;
}
async function query<T>(request: APIRequestContext, path: string, input: unknown): Promise<T> {
  const res = await request.get(`/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`);
  expect(res.status(), `${path}: ${await res.text()}`).toBe(200);
  return (await res.json()).result.data as T;
}

/** How far the page itself scrolls sideways (boxes that scroll inside themselves do not count). */
const pageWidth = (page: Page) => page.evaluate(() => document.scrollingElement!.scrollWidth);

test("every main page fits 390 px and the menu opens, traps focus, closes and navigates", async ({ page }) => {
  test.setTimeout(180_000);
  await signUpOrSignIn(page);
  const me = await page.request.get("/api/trpc/account.me");
  const workspaceId = (await me.json()).result.data.workspaces[0].id as string;
  const demo = await trpc<{ projectUid: string }>(page.request, "projects.startDemo", { workspaceId });
  const review = await trpc<{ uid: string }>(page.request, "reviews.start", {
    projectUid: demo.projectUid,
    engine: "static",
  });
  await expect
    .poll(async () => (await query<{ status: string }>(page.request, "reviews.get", { uid: review.uid })).status, {
      timeout: 90_000,
    })
    .toBe("completed");

  const pages: [string, RegExp | string][] = [
    ["/", /Welcome, Ada/],
    ["/projects", "Projects"],
    [`/projects/${demo.projectUid}`, /./],
    [`/reviews/${review.uid}`, /Review of/],
    ["/prompts", "Prompts"],
    ["/knowledge", /Knowledge/],
    ["/pipelines", "Pipelines"],
    ["/settings", "Settings"],
  ];
  for (const [path, heading] of pages) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1, name: heading }).first()).toBeVisible();
    if (path.startsWith("/reviews/")) await expect(page.getByRole("list", { name: "Findings" })).toBeVisible();
    if (path === `/projects/${demo.projectUid}`)
      await expect(page.getByPlaceholder("Filter files…")).toBeVisible({ timeout: 30_000 });
    await page.waitForLoadState("networkidle");
    expect(await pageWidth(page), `${path} scrolls sideways at 390 px`).toBeLessThanOrEqual(390);
    // The sidebar is not beside the page: the content starts at the left edge.
    const main = await page.getByRole("main").boundingBox();
    expect(main!.x, `${path}: main content is pushed right`).toBeLessThan(1);
  }

  // The menu: closed, it is out of sight and out of the tab order.
  const menu = page.getByRole("button", { name: "Open menu" });
  const nav = page.getByRole("navigation", { name: "Main" });
  await expect(menu).toHaveAttribute("aria-expanded", "false");
  await expect(nav).toBeHidden();

  await menu.click();
  await expect(menu).toHaveAttribute("aria-expanded", "true");
  const drawer = page.getByRole("dialog", { name: "Menu" });
  await expect(drawer).toBeVisible();
  await expect(nav.getByRole("link", { name: "Projects" })).toBeVisible();
  // Focus is inside, and Tab / Shift+Tab keep it there.
  const focusInDrawer = () => page.evaluate(() => !!document.activeElement?.closest("#app-sidebar"));
  await expect.poll(focusInDrawer).toBe(true);
  await page.keyboard.press("Shift+Tab");
  expect(await focusInDrawer()).toBe(true);
  for (let i = 0; i < 15; i++) await page.keyboard.press("Tab");
  expect(await focusInDrawer()).toBe(true);
  expect(await pageWidth(page)).toBeLessThanOrEqual(390);

  // Esc closes it and gives focus back to the menu button.
  await page.keyboard.press("Escape");
  await expect(drawer).toBeHidden();
  await expect(menu).toHaveAttribute("aria-expanded", "false");
  await expect(menu).toBeFocused();

  // It navigates, closing behind it.
  await menu.click();
  await nav.getByRole("link", { name: "Projects" }).click();
  await expect(page).toHaveURL(/\/projects$/);
  await expect(page.getByRole("heading", { level: 1, name: "Projects" })).toBeVisible();
  await expect(drawer).toBeHidden();
  await expect(menu).toHaveAttribute("aria-expanded", "false");

  // The backdrop closes it too.
  await menu.click();
  await expect(drawer).toBeVisible();
  await page.mouse.click(380, 400);
  await expect(drawer).toBeHidden();
});
