import { expect, test, type Locator } from "@playwright/test";
import { signUpOrSignIn } from "./support/owner.ts";
import { inOwnWorkspace } from "./support/own-workspace.ts";
import { trpc, workspaceOf } from "./support/scripted-review.ts";

inOwnWorkspace("Dark");

// Issue 28, point 8: dark mode everywhere. In the dark theme the code viewer is dark, an @mention
// pill is readable (not white on white), and the trend chart's axes follow the theme's text colour.
test.use({ colorScheme: "dark", viewport: { width: 1280, height: 900 } });

/** Relative luminance (0 black … 1 white) of sRGB channels 0–255. */
function luminance([r, g, b]: number[]): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r!) + 0.7152 * lin(g!) + 0.0722 * lin(b!);
}
const contrast = (a: number, b: number) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);

/**
 * An element's computed colour as it shows: converted to sRGB by a canvas (computed colours may be
 * oklch()), a translucent background painted over the nearest opaque one behind it.
 */
const shown = (l: Locator, prop: "color" | "backgroundColor" | "fill") =>
  l.evaluate((el, p) => {
    const ctx = document.createElement("canvas").getContext("2d", { willReadFrequently: true })!;
    const paint = (colors: string[]) => {
      ctx.clearRect(0, 0, 1, 1);
      for (const c of colors) {
        ctx.fillStyle = c;
        ctx.fillRect(0, 0, 1, 1);
      }
      return [...ctx.getImageData(0, 0, 1, 1).data.slice(0, 3)];
    };
    const layers: string[] = [];
    if (p === "backgroundColor") {
      for (let at: Element | null = el; at; at = at.parentElement) {
        const bg = getComputedStyle(at).backgroundColor;
        layers.unshift(bg);
        if (paint([bg]).length && ctx.getImageData(0, 0, 1, 1).data[3] === 255) break;
      }
      return paint(layers);
    }
    return paint([getComputedStyle(el)[p as "color"]]);
  }, prop);

test("the code viewer, an @mention pill and the trend chart follow the dark theme", async ({ page }) => {
  test.setTimeout(120_000);
  await signUpOrSignIn(page);
  const workspaceId = await workspaceOf(page);
  const demo = await trpc<{ projectUid: string }>(page.request, "projects.startDemo", { workspaceId });
  await page.goto(`/projects/${demo.projectUid}?file=src/api.py`);
  await expect(page.locator("html")).toHaveClass(/dark/);

  // The code viewer: a dark box, light code.
  const code = page.locator("table.font-mono").first();
  await expect(code).toBeVisible({ timeout: 60_000 });
  const box = code.locator("xpath=..");
  expect(luminance(await shown(box, "backgroundColor"))).toBeLessThan(0.05);
  const keyword = code.locator(".hljs-keyword").first();
  expect(
    contrast(luminance(await shown(keyword, "color")), luminance(await shown(box, "backgroundColor"))),
  ).toBeGreaterThan(4.5);

  // An @mention pill in the team chat: readable on its own background (the token as the composer writes it).
  const me = await (await page.request.get("/api/trpc/account.me")).json();
  const composer = page.getByRole("textbox", { name: "Message" });
  await composer.fill(`Look at this @[${me.result.data.user.name}](mention:${me.result.data.user.id}) please`);
  await composer.press("Enter");
  const pill = page.getByRole("list", { name: "Chat messages" }).locator("[data-mention]").last();
  await expect(pill).toBeVisible({ timeout: 15_000 });
  const pillBg = luminance(await shown(pill, "backgroundColor"));
  const pillText = luminance(await shown(pill, "color"));
  expect(pillBg).toBeLessThan(0.2);
  expect(contrast(pillText, pillBg)).toBeGreaterThan(4.5);

  // The trend chart's axis labels use the theme's (light) text colour, not a fixed grey.
  const tick = page.locator('figure[aria-label="Findings trend"] .recharts-cartesian-axis-tick-value').first();
  await expect(tick).toBeVisible({ timeout: 60_000 });
  expect(luminance(await shown(tick, "fill"))).toBeGreaterThan(0.4);
});
