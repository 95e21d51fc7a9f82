import { expect, test } from "@playwright/test";
import os from "node:os";
import path from "node:path";
import { startScriptedServer, type ScriptedServer } from "../server/llm/scripted/server.ts";
import { signUpOrSignIn } from "./support/owner.ts";
import { trpc } from "./support/scripted-review.ts";

// Issue 28, points 1 and 2: a workspace's model is one clear thing. A gallery card that needs a model
// says so when the workspace has none, with the link; an owner adds connections and marks one as the
// default; a gallery pipeline then runs on it (its parameters name no model) and the run page says
// which connection ran; Start review and Ask preselect the default and let a member pick another.
test.describe.configure({ mode: "serial" });

const ownerState = path.join(os.tmpdir(), `argus-e2e-first-hour-models-${process.pid}.json`);
let llm: ScriptedServer;
let workspaceId = "";
let previousWorkspaceId = "";

test.beforeAll(async () => {
  llm = await startScriptedServer({ script: { rules: [{ text: "The tides follow the Moon. \\boxed{the Moon}" }] } });
});
test.afterAll(async ({ browser }) => {
  await llm?.close();
  if (!previousWorkspaceId) return;
  const ctx = await browser.newContext({ storageState: ownerState });
  await trpc(ctx.request, "workspaces.switch", { workspaceId: previousWorkspaceId }).catch(() => undefined);
  await ctx.close();
});

test("the owner is signed in, in a workspace of this spec's own (no model connection yet)", async ({ page }) => {
  await signUpOrSignIn(page);
  await page.context().storageState({ path: ownerState });
  const me = await (await page.request.get("/api/trpc/account.me")).json();
  previousWorkspaceId = me.result.data.currentWorkspaceId as string;
  workspaceId = (await trpc<{ id: string }>(page.request, "workspaces.create", { name: `Models ${Date.now()}` })).id;
  await trpc(page.request, "workspaces.switch", { workspaceId });
});

test.describe("signed in as the owner", () => {
  test.use({ storageState: ownerState, viewport: { width: 1280, height: 900 } });

  test("a gallery card that needs a model says so before Run, with the link to add one", async ({ page }) => {
    await page.goto("/pipelines");
    const gallery = page.getByRole("list", { name: "Gallery pipelines" });
    const needsModel = gallery.getByRole("listitem").filter({ hasText: "Vanilla RAG (BM25)" });
    await expect(needsModel.getByRole("note")).toHaveText(/Needs a model, and this workspace has none yet/);
    // A pipeline that runs offline says nothing of the kind.
    await expect(gallery.getByRole("listitem").filter({ hasText: "BM25 search" }).getByRole("note")).toHaveCount(0);
    await needsModel.getByRole("link", { name: "Add one in Settings → Model providers" }).click();
    await expect(page).toHaveURL(/\/settings#model-providers$/);
    await expect(page.getByRole("heading", { name: "Model providers" })).toBeVisible();
  });

  test("the owner marks the default; a gallery pipeline runs on it and its run names the connection", async ({
    page,
  }) => {
    for (const [name, model] of [
      ["A spare", "spare-model"],
      ["Team scripted", "scripted-model"],
    ])
      await trpc(page.request, "providers.save", {
        workspaceId,
        uid: crypto.randomUUID(),
        name,
        provider: "openai-compatible",
        baseUrl: llm.openaiBaseURL,
        model,
      });
    await page.goto("/settings#model-providers");
    const list = page.getByRole("list", { name: "Model providers" });
    await list.getByRole("button", { name: "Make Team scripted the default" }).click();
    await expect(list.getByRole("listitem").first()).toContainText("Team scripted");
    await expect(list.getByRole("listitem").first()).toContainText("workspace default");
    await expect(list.getByRole("button", { name: "Make Team scripted the default" })).toHaveCount(0);

    await page.goto("/pipelines");
    const card = page.getByRole("list", { name: "Gallery pipelines" }).getByRole("listitem").filter({
      hasText: "Vanilla LLM",
    });
    await expect(card).toBeVisible();
    await expect(card.getByRole("note")).toHaveCount(0);

    await page.goto("/pipelines/gallery/vanilla_llm");
    await page.getByRole("button", { name: "Run" }).click();
    await page.getByRole("dialog", { name: "Run pipeline" }).getByRole("button", { name: "Start run" }).click();
    await expect(page).toHaveURL(/\/pipelines\/runs\/[0-9a-f-]{36}$/);
    await expect(page.locator('[data-status="completed"]').first()).toBeVisible({ timeout: 60_000 });
    await expect(page.getByTestId("run-model")).toHaveText(/Team scripted · scripted-model/);
    expect(llm.requests.some((r) => r.body.model === "scripted-model")).toBe(true);
    expect(llm.requests.some((r) => r.body.model === "spare-model")).toBe(false);
  });

  test("Start review and Ask preselect the default connection and let a member pick another", async ({ page }) => {
    const demo = await trpc<{ projectUid: string }>(page.request, "projects.startDemo", { workspaceId });
    await page.goto(`/projects/${demo.projectUid}`);
    // The demo's code is imported first: the button shows once it is ready.
    await page.getByRole("button", { name: "Start review" }).first().click({ timeout: 60_000 });
    const dialog = page.getByRole("dialog", { name: "Start a review" });
    await dialog.getByRole("radio", { name: /Review agent/ }).check();
    const picker = dialog.getByRole("combobox", { name: "Model connection" });
    await expect(picker.locator("option:checked")).toHaveText("Team scripted · scripted-model (default)");
    // The keyless server default is listed but cannot be picked.
    await expect(picker.locator("option", { hasText: "Server default (environment)" })).toBeDisabled();
    await picker.selectOption({ label: "A spare · spare-model" });
    await dialog.getByRole("button", { name: "Cancel" }).click();

    const ask = page.getByRole("form", { name: "Ask Argus" });
    await expect(ask.getByRole("combobox", { name: "Model connection" }).locator("option:checked")).toHaveText(
      "Team scripted · scripted-model (default)",
    );
  });
});
