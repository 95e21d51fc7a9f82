import { expect, test, type Page } from "@playwright/test";
import os from "node:os";
import path from "node:path";
import { signUpOrSignIn } from "./support/owner.ts";

// A knowledge base from the owner's side: create it, upload documents, watch them get indexed,
// search them. Runs alone or after foundation.spec.ts (same server): the owner is created if Argus
// is not set up yet, else signed in with the same account foundation.spec.ts creates.
test.describe.configure({ mode: "serial" });

const ownerState = path.join(os.tmpdir(), `argus-e2e-knowledge-${process.pid}.json`);

const LIGHTHOUSE_MD =
  "# Lighthouse maintenance\n\nThe **lighthouse** lamp is cleaned every Tuesday.\n\nSee [the schedule](https://example.com/schedule).\n";
const BUDGET_TXT = "Budget notes.\nThe harbour budget covers new mooring ropes and a radio.\n";

const nav = (page: Page, name: string) =>
  page.getByRole("navigation", { name: "Main" }).getByRole("link", { name }).click();

test("the owner is signed in", async ({ page }) => {
  await signUpOrSignIn(page);
  await page.context().storageState({ path: ownerState });
});

test.describe("signed in as the owner", () => {
  test.use({ storageState: ownerState });

  test("create a knowledge base, upload a .md and a .txt, see them indexed, and search them", async ({ page }) => {
    await page.goto("/");
    await nav(page, "Knowledge");
    await expect(page.getByText("No knowledge bases yet")).toBeVisible();
    await page.getByRole("button", { name: "New knowledge base" }).first().click();
    await page.getByRole("textbox", { name: "Name", exact: true }).fill("Harbour handbook");
    await page.getByLabel("Description").fill("How the harbour is run");
    await page.getByRole("button", { name: "Create knowledge base" }).click();
    await expect(page).toHaveURL(/\/knowledge\/[0-9a-f-]{36}$/);
    await expect(page.getByRole("heading", { name: "Harbour handbook" })).toBeVisible();
    await expect(page.getByText("No documents yet")).toBeVisible();

    await page.getByLabel("Documents to upload").setInputFiles([
      { name: "lighthouse.md", mimeType: "text/markdown", buffer: Buffer.from(LIGHTHOUSE_MD) },
      { name: "budget.txt", mimeType: "text/plain", buffer: Buffer.from(BUDGET_TXT) },
      { name: "slides.pptx", mimeType: "application/octet-stream", buffer: Buffer.from("not read") },
    ]);
    const table = page.getByRole("table", { name: "Documents" });
    const row = (name: string) => table.getByRole("row").filter({ hasText: name });
    await expect(row("lighthouse.md")).toContainText("ready", { timeout: 30_000 });
    await expect(row("budget.txt")).toContainText("ready");
    await expect(row("slides.pptx")).toContainText("skipped");
    await expect(row("slides.pptx")).toContainText('".pptx" files are not supported');
    await expect(page.getByText("2 of 3 documents indexed")).toBeVisible();

    await page.getByLabel("Search the documents").fill("lighthouse lamp");
    const results = page.getByRole("list", { name: "Search results" });
    const first = results.getByRole("listitem").first();
    await expect(first).toContainText("lighthouse.md");
    await expect(first.locator("mark").first()).toHaveText(/lighthouse|lamp/i);
    // Markdown syntax is not part of what was indexed.
    await expect(first).not.toContainText("**");
    // The hit answers the query: labelled a strong match, and only strong matches are listed.
    await expect(first.locator("[data-match]")).toHaveText("strong match");
    await expect(results.locator('[data-match="weak"]')).toHaveCount(0);
    await expect(page.getByText("No good match")).toHaveCount(0);

    // A question the documents do not answer says so, above the nearest results marked weak.
    await page.getByLabel("Search the documents").fill("best pizza dough recipe");
    await expect(page.getByRole("status").filter({ hasText: "No good match" })).toContainText(
      "No good match for “best pizza dough recipe”",
    );
    await expect(results.getByRole("listitem").first().locator("[data-match]")).toHaveText("weak match");
    await expect(results.locator('[data-match="strong"]')).toHaveCount(0);

    await page.getByLabel("Search the documents").fill("mooring ropes");
    await expect(results.getByRole("listitem").first()).toContainText("budget.txt");

    // The list page shows the base with its counts.
    await page.getByRole("link", { name: "← Knowledge" }).click();
    const bases = page.getByRole("list", { name: "Knowledge bases" });
    await expect(bases.getByRole("link", { name: "Harbour handbook" })).toBeVisible();
    await expect(bases).toContainText("3 documents");
  });
});
