import { expect, test } from "@playwright/test";
import { buildZip } from "../test/helpers/zip.ts";
import { signUpOrSignIn } from "./support/owner.ts";
import { inOwnWorkspace } from "./support/own-workspace.ts";
import { trpc, workspaceOf } from "./support/scripted-review.ts";

inOwnWorkspace("Import");

// Issue 28, point 6 (the file tree): an imported project opens on its README, not on the file that
// sorts first (.dockerignore), and its file tree is a tree whose folders fold.
test.use({ viewport: { width: 1280, height: 900 } });

const zip = buildZip([
  { name: "shop/.dockerignore", data: "node_modules\n" },
  { name: "shop/README.md", data: "# Shop\n\nA small shop.\n" },
  { name: "shop/src/server.js", data: "const express = require('express');\nmodule.exports = express();\n" },
  { name: "shop/src/routes/items.js", data: "module.exports = (req, res) => res.send(req.query.q);\n" },
  { name: "shop/test/items.test.js", data: "test('items', () => {});\n" },
]);

test("an imported project opens on its README; its folders fold", async ({ page }) => {
  test.setTimeout(120_000);
  await signUpOrSignIn(page);
  const workspaceId = await workspaceOf(page);
  const uid = crypto.randomUUID();
  await trpc(page.request, "projects.create", { workspaceId, uid, name: `Tree ${Date.now()}` });
  await page.goto(`/projects/${uid}`);
  await page.getByLabel("Zip archive").setInputFiles({ name: "shop.zip", mimeType: "application/zip", buffer: zip });

  const files = page.getByRole("list", { name: "Files" });
  const readme = files.getByRole("link", { name: "README.md", exact: true });
  await expect(readme).toBeVisible({ timeout: 60_000 });
  await expect(readme).toHaveAttribute("aria-current", "page");
  await expect(page.getByText("A small shop.")).toBeVisible();

  // Files show under their folders, by name; a folder folds and opens again.
  const items = files.getByRole("link", { name: "src/routes/items.js" });
  await expect(items).toHaveText("items.js");
  const src = files.locator("summary", { hasText: /^src\/$/ });
  await src.click();
  await expect(items).toBeHidden();
  await expect(files.getByRole("link", { name: "src/server.js" })).toBeHidden();
  await src.click();
  await expect(items).toBeVisible();
});

// Issue 28, point 6 (one flow): a new project opens on its page with the import at the top; the
// import's progress shows there, and the status badge follows it (empty → ingesting → ready) without
// a reload.
test("a new project opens with its import at the top; the status badge follows the import live", async ({ page }) => {
  test.setTimeout(120_000);
  await signUpOrSignIn(page);
  await page.goto("/projects");
  await page.getByRole("button", { name: "New project" }).first().click();
  const name = `Flow ${Date.now()}`;
  await page.getByRole("textbox", { name: "Name", exact: true }).fill(name);
  await page.getByRole("button", { name: "Create project" }).click();
  await expect(page).toHaveURL(/\/projects\/[0-9a-f-]{36}$/);
  await expect(page.getByRole("heading", { name, level: 1 })).toBeVisible();
  const badge = page.getByTestId("project-status");
  await expect(badge).toHaveText("empty");
  // The import leads: above the reviews, within the first screen.
  const importCard = page.getByRole("heading", { name: "Import code" });
  await expect(importCard).toBeInViewport();
  const importY = (await importCard.boundingBox())!.y;
  const reviewsY = (await page.getByLabel("Project reviews").boundingBox())!.y;
  expect(importY).toBeLessThan(reviewsY);

  await page.getByLabel("Zip archive").setInputFiles({ name: "shop.zip", mimeType: "application/zip", buffer: zip });
  await expect(badge).toHaveText("ready", { timeout: 60_000 });
  await expect(page.getByRole("list", { name: "Files" }).getByRole("link", { name: "README.md" })).toBeVisible();
});
