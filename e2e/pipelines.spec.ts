import { expect, test, type Page } from "@playwright/test";
import os from "node:os";
import path from "node:path";
import { startScriptedServer, type ScriptedServer } from "../server/llm/scripted/server.ts";
import { signUpOrSignIn } from "./support/owner.ts";
import { inviteTeammate, workspaceOf } from "./support/scripted-review.ts";

// Pipelines from the browser: the gallery, a pipeline's graph, forking it, editing its YAML with the
// engine's diagnostics at their line, a parameter, saving a version, running it on the sample data
// with the steps streaming in, and a pipeline that evaluates; editing the graph (loop, branch,
// delete), re-running a past run and comparing two, and two members together on a pipeline's page.
test.describe.configure({ mode: "serial" });

const ownerState = path.join(os.tmpdir(), `argus-e2e-pipelines-${process.pid}.json`);

/**
 * Selects a step on the graph the way a person does, once the graph is in a state to be clicked: the
 * current graph laid out and fitted (an edit redraws it), then the card marked selected.
 */
async function pick(page: Page, label: string) {
  const graph = page.getByTestId("pipeline-graph");
  await expect(graph).toHaveAttribute("data-layout", "ready");
  await graph.getByText(label, { exact: true }).click();
  await expect(graph.locator("[data-selected]")).toContainText(label);
}

/**
 * Takes back this page's own edits with undo (in the editor: only one's own edits are undone). The
 * pipeline's draft is shared and outlives the page, so a test that leaves edits unsaved leaves them
 * for the next one to find.
 */
async function undoOwnEdits(page: Page) {
  await page.getByRole("textbox", { name: "Pipeline YAML" }).click();
  const unsaved = page.getByText("unsaved changes");
  for (let i = 0; i < 10 && (await unsaved.isVisible()); i++) {
    await page.keyboard.press("Control+z");
    await page.waitForTimeout(300);
  }
  await expect(unsaved).toBeHidden();
}

/** How far the page itself scrolls sideways (boxes that scroll inside themselves do not count). */
const pageWidth = (page: Page) => page.evaluate(() => document.scrollingElement!.scrollWidth);

let pipelineUrl = "";
let runUrl = "";

test("the owner is signed in", async ({ page }) => {
  await signUpOrSignIn(page);
  await page.context().storageState({ path: ownerState });
});

test.describe("signed in as the owner", () => {
  test.use({ storageState: ownerState, viewport: { width: 1280, height: 900 } });

  test("the gallery: cards, search, tag filters, a pipeline's graph and a step's description", async ({ page }) => {
    await page.goto("/pipelines");
    await expect(page.getByRole("heading", { level: 1, name: "Pipelines" })).toBeVisible();
    await expect(page.getByText("No pipelines of your own yet")).toBeVisible();
    const gallery = page.getByRole("list", { name: "Gallery pipelines" });
    await expect(gallery.getByRole("listitem")).toHaveCount(21);
    const card = gallery.getByRole("listitem").filter({ hasText: "BM25 search" });
    await expect(card).toContainText("runs offline");
    await expect(card).toContainText("#bm25");
    await expect(gallery.getByRole("listitem").filter({ hasText: "Vanilla RAG (BM25)" })).toContainText(
      "needs a model",
    );

    await page
      .getByRole("searchbox", { name: "Search pipelines" })
      .or(page.getByLabel("Search pipelines"))
      .fill("trec");
    await expect(page).toHaveURL(/\?q=trec/);
    await expect(gallery.getByRole("listitem")).toHaveCount(2);
    await page.getByRole("button", { name: "Clear filters" }).click();
    await page.getByRole("group", { name: "Filter by tag" }).getByRole("button", { name: "#rerank" }).click();
    await expect(page).toHaveURL(/tag=rerank/);
    await expect(gallery.getByRole("listitem")).toHaveCount(1);
    await expect(gallery).toContainText("Retrieve and rerank");
    await page.getByRole("button", { name: "Clear filters" }).click();

    // A pipeline with a loop and a branch: both drawn as such.
    await page.goto("/pipelines/gallery/ircot");
    const graph = page.getByTestId("pipeline-graph");
    await expect(graph.getByText("loop ×3")).toBeVisible();
    await expect(graph.locator('[aria-label^="branch router.ircot_check_end"]')).toBeVisible();
    await expect(graph.getByText("incomplete", { exact: true })).toBeVisible();
    await expect(graph.getByText("complete · repeat")).toBeVisible();

    await page.getByRole("link", { name: "Pipelines" }).first().click();
    await gallery.getByRole("link", { name: "BM25 search" }).click();
    await expect(page).toHaveURL(/\/pipelines\/gallery\/bm25_search$/);
    await expect(page.getByRole("heading", { level: 1, name: "BM25 search" })).toBeVisible();
    await pick(page, "retriever.bm25_search");
    await expect(page).toHaveURL(/node=s3/);
    const details = page.getByRole("region", { name: "Step details" });
    await expect(details.getByText("Finds the top_k passages for each query with BM25")).toBeVisible();
    await expect(details.getByText("query_list ← q_ls", { exact: true })).toBeVisible();
    await expect(details.getByText("top_k ← $top_k = 3", { exact: true })).toBeVisible();
    // The deep link opens the same step.
    await page.reload();
    await expect(page.getByText("Finds the top_k passages for each query with BM25")).toBeVisible();
  });

  test("fork, edit the YAML and see the problem at its line, fix it, change a parameter, save a version", async ({
    page,
  }) => {
    await page.goto("/pipelines/gallery/bm25_search");
    await page.getByRole("button", { name: "Fork to edit" }).click();
    const dialog = page.getByRole("dialog", { name: "Fork pipeline" });
    await dialog.getByLabel("Name").fill("my_bm25");
    await dialog.getByRole("button", { name: "Fork" }).click();
    await expect(page).toHaveURL(/\/pipelines\/[0-9a-f-]{36}$/);
    pipelineUrl = new URL(page.url()).pathname;
    await expect(page.getByText("version 1", { exact: true })).toBeVisible();

    const editor = page.getByRole("textbox", { name: "Pipeline YAML" });
    await editor.getByText("- retriever.bm25_search").click();
    await page.keyboard.press("End");
    await page.keyboard.type("x");
    const problems = page.getByRole("list", { name: "Problems" });
    await expect(problems).toContainText("Line 15, column 5");
    await expect(problems).toContainText("bm25_searchx");
    await expect(page.locator(".cm-lintRange-error")).toHaveText("retriever.bm25_searchx");
    // The graph follows the typed YAML: the step is renamed there too.
    await expect(page.getByTestId("pipeline-graph").getByText("retriever.bm25_searchx")).toBeVisible();
    await expect(page.getByText("unsaved changes")).toBeVisible();
    await expect(page.getByRole("button", { name: "Run" })).toBeDisabled();
    await page.keyboard.press("Backspace");
    await expect(problems).toBeHidden();
    await expect(page.getByText("valid", { exact: true })).toBeVisible();

    await page.getByRole("tab", { name: "Parameters" }).click();
    await expect(page).toHaveURL(/tab=parameters/);
    const topK = page.getByRole("textbox", { name: "Results per question" });
    await topK.fill("lots");
    await expect(page.getByText("retriever.top_k: must be a number")).toBeVisible();
    await topK.fill("2");
    await expect(page.getByText("retriever.top_k: must be a number")).toBeHidden();
    await page.getByText(/Parameter file \(parameter\/my_bm25_parameter\.yaml\)/).click();
    await expect(page.getByLabel("Parameter file")).toContainText("top_k: 2");
    // The graph's step shows the new value too.
    await pick(page, "retriever.bm25_search");
    await expect(page.getByRole("region", { name: "Step details" }).getByText("top_k ← $top_k = 2")).toBeVisible();

    await page.getByRole("button", { name: "Save version" }).click();
    await expect(page.getByText("Saved version 2")).toBeVisible();
    await expect(page.getByText("version 2", { exact: true })).toBeVisible();
    await page.getByRole("tab", { name: "Versions" }).click();
    const versions = page.getByRole("list", { name: "Versions" });
    await expect(versions.getByRole("listitem")).toHaveCount(2);
    const diff = page.getByLabel("Parameters diff");
    await expect(diff.locator('[data-kind="del"]')).toContainText("top_k: 3");
    await expect(diff.locator('[data-kind="add"]')).toContainText("top_k: 2");
  });

  test("run it on the sample: the steps stream in, then the sources and one case", async ({ page }) => {
    await page.goto(pipelineUrl);
    await page.getByRole("button", { name: "Run" }).click();
    const dialog = page.getByRole("dialog", { name: "Run pipeline" });
    await expect(dialog.getByLabel("The sample data set")).toBeChecked();
    await dialog.getByRole("button", { name: "Start run" }).click();
    await expect(page).toHaveURL(/\/pipelines\/runs\/[0-9a-f-]{36}$/);
    runUrl = new URL(page.url()).pathname;
    const steps = page.getByRole("list", { name: "Steps" });
    for (const name of [
      "benchmark.get_data",
      "retriever.retriever_init",
      "retriever.bm25_index",
      "retriever.bm25_search",
    ])
      await expect(steps.locator(`[data-step="${name}"]`)).toBeVisible({ timeout: 30_000 });
    await expect(page.getByText("completed", { exact: true })).toBeVisible({ timeout: 30_000 });
    await expect(page.getByText("4 steps done")).toBeVisible();
    await steps.getByText("2 sources").click();
    await expect(
      page.getByRole("list", { name: "Sources of retriever.bm25_search" }).getByRole("listitem"),
    ).toHaveCount(2);
    await expect(page.getByRole("heading", { name: "Case 1 of 5" })).toBeVisible();
    await page.getByRole("button", { name: "Next case →" }).click();
    await expect(page.getByRole("heading", { name: "Case 2 of 5" })).toBeVisible();
    await expect(page.getByRole("list", { name: "Case 2" })).toContainText("memory_ret_psg");
    // The team's chat is in the run's room.
    await page.getByRole("textbox", { name: "Message", exact: true }).fill("Top 2 looks right");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await expect(page.getByRole("list", { name: "Chat messages" })).toContainText("Top 2 looks right");

    await page.goto(`${pipelineUrl}?tab=runs`);
    await expect(page.getByRole("list", { name: "Runs" }).getByRole("listitem").first()).toContainText("completed");
    await expect(page.getByRole("list", { name: "Runs" }).getByRole("listitem").first()).toContainText("version 2");
  });

  test("a pipeline that evaluates shows its evaluation table", async ({ page }) => {
    await page.goto("/pipelines/gallery/eval_trec");
    await page.getByRole("button", { name: "Run" }).click();
    await page.getByRole("dialog", { name: "Run pipeline" }).getByRole("button", { name: "Start run" }).click();
    const table = page.getByRole("table", { name: "Evaluation results of evaluation.evaluate_trec" });
    await expect(table).toBeVisible({ timeout: 30_000 });
    await expect(table.getByRole("row").filter({ hasText: "mrr" })).toContainText("1");
    await expect(table.getByRole("row").filter({ hasText: "P@2" })).toContainText("0.5");
  });

  test("a forked RAG pipeline on the scripted model: tokens stream, answers are scored", async ({ page }) => {
    const llm: ScriptedServer = await startScriptedServer({
      script: { rules: [{ text: "The passages say so: \\boxed{Mount Everest}" }] },
    });
    try {
      await page.goto("/pipelines/gallery/vanilla_rag");
      await page.getByRole("button", { name: "Fork to edit" }).click();
      await page.getByRole("dialog", { name: "Fork pipeline" }).getByRole("button", { name: "Fork" }).click();
      await expect(page).toHaveURL(/\/pipelines\/[0-9a-f-]{36}$/);
      await page.getByRole("tab", { name: "Parameters" }).click();
      const generation = page.getByRole("region", { name: "generation parameters" });
      await generation.getByRole("textbox", { name: "OpenAI-compatible API · Base URL" }).fill(llm.openaiBaseURL);
      await generation.getByRole("textbox", { name: "OpenAI-compatible API · Model" }).fill("scripted");
      await generation.getByLabel("OpenAI-compatible API · API key").fill("sk-scripted-key");
      await page.getByRole("button", { name: "Save version" }).click();
      await expect(page.getByText("Saved version 2")).toBeVisible();
      // The key is stored, never shown again.
      await page.reload();
      await expect(page.locator("body")).not.toContainText("sk-scripted-key");

      await page.getByRole("button", { name: "Run" }).click();
      await page.getByRole("dialog", { name: "Run pipeline" }).getByRole("button", { name: "Start run" }).click();
      const steps = page.getByRole("list", { name: "Steps" });
      await expect(steps.locator('[data-step="generation.generate"]')).toContainText("characters streamed", {
        timeout: 30_000,
      });
      await expect(steps.locator('[data-step="generation.generate"]')).toContainText("\\boxed{Mount Everest}");
      // The model's tokens: the step's own and the run's in all.
      await expect(steps.getByLabel("Tokens of generation.generate")).toContainText(/\d+ in · \d+ out tokens/);
      await expect(page.getByLabel("Tokens in all")).toContainText("out tokens in all");
      const table = page.getByRole("table", { name: "Evaluation results of evaluation.evaluate" });
      await expect(table).toBeVisible({ timeout: 30_000 });
      // One of the five sample questions is about Everest: accuracy 1 for it, 0.2 on average.
      await expect(table.getByRole("row").filter({ hasText: /^acc/ })).toContainText("0.2000");
      // One case, step by step: the question's answer as the model streamed it.
      await expect(page.getByRole("heading", { name: "Case 1 of 5" })).toBeVisible();
      await expect(page.getByRole("list", { name: "Case 1" })).toContainText("Mount Everest");
      expect(llm.requests.filter((r) => r.api === "chat").length).toBeGreaterThanOrEqual(5);
      expect(llm.requests[0]?.headers.authorization).toBe("[redacted]");
    } finally {
      await llm.close();
    }
  });

  test("import YAML: problems at their line, imported as a draft that cannot run", async ({ page }) => {
    await page.goto("/pipelines");
    await page.getByRole("button", { name: "Import YAML" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Import pipeline YAML" });
    await dialog.getByLabel("Name").fill("hello_draft");
    await dialog.getByLabel("YAML file").setInputFiles({
      name: "hello.yaml",
      mimeType: "text/yaml",
      buffer: Buffer.from("servers:\n  sayhello: servers/sayhello\npipeline:\n  - sayhello.gret\n"),
    });
    await expect(dialog.getByRole("list", { name: "Problems" })).toContainText("Line 4, column 5");
    await expect(dialog).toContainText("It will be imported as a draft");
    await dialog.getByRole("button", { name: "Import" }).click();
    await expect(page).toHaveURL(/\/pipelines\/[0-9a-f-]{36}$/);
    await expect(page.getByText("1 problem", { exact: true })).toBeVisible();
    await expect(page.getByRole("button", { name: "Run" })).toBeDisabled();
    await page.goto("/pipelines");
    await expect(page.getByRole("list", { name: "This workspace's pipelines" })).toContainText("draft: invalid");
  });

  test("a question carrying HTML is shown as text on the run's page, and nothing of it runs", async ({ page }) => {
    const payload = `<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>`;
    await page.goto(pipelineUrl);
    await page.getByRole("button", { name: "Run" }).click();
    const dialog = page.getByRole("dialog", { name: "Run pipeline" });
    await dialog.getByLabel("Ask one question").check();
    await dialog.getByLabel("Question", { exact: true }).fill(payload);
    await dialog.getByRole("button", { name: "Start run" }).click();
    await expect(page.getByRole("heading", { name: "Case 1 of 1" })).toBeVisible({ timeout: 30_000 });
    await expect(page.getByRole("list", { name: "Case 1" })).toContainText(payload);
    await page.getByRole("list", { name: "Steps" }).getByText("2 sources").click();
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.locator("main img[onerror], main script").count()).toBe(0);
  });

  test("add a step from the server registry: the YAML and the graph follow", async ({ page }) => {
    await page.goto(pipelineUrl);
    await page.getByRole("button", { name: "Add step" }).click();
    const dialog = page.getByRole("dialog", { name: "Add a step" });
    await dialog.getByLabel("Server").selectOption("sayhello");
    await expect(dialog).toContainText("Says hello to $name.");
    await expect(dialog).toContainText("writes msg");
    await dialog.getByRole("button", { name: "Add step" }).click();
    const editor = page.getByRole("textbox", { name: "Pipeline YAML" });
    await expect(editor).toContainText("sayhello: servers/sayhello");
    await expect(editor).toContainText("- sayhello.greet");
    await expect(page.getByTestId("pipeline-graph").getByText("sayhello.greet")).toBeVisible();
    await expect(page.getByText("unsaved changes")).toBeVisible();
    await undoOwnEdits(page);
    await expect(editor).not.toContainText("sayhello");
  });

  test("the graph adds a loop after the selected step and a branch, and deletes them: the YAML follows", async ({
    page,
  }) => {
    await page.goto(pipelineUrl);
    const graph = page.getByTestId("pipeline-graph");
    const editor = page.getByRole("textbox", { name: "Pipeline YAML" });
    await pick(page, "retriever.bm25_index");
    await expect(page.getByText("New steps go after retriever.bm25_index.")).toBeVisible();
    await page.getByRole("button", { name: "Add loop" }).click();
    const loop = page.getByRole("dialog", { name: "Add a loop" });
    await loop.getByLabel("Server").selectOption("sayhello");
    await loop.getByLabel("Times").fill("3");
    await loop.getByRole("button", { name: "Add loop" }).click();
    await expect(editor).toContainText("times: 3");
    await expect(graph.getByText("loop ×3")).toBeVisible();
    await expect(graph.getByText("sayhello.greet")).toBeVisible();

    // A move from one selected step to another stays put (it used to bounce back and forth).
    await pick(page, "sayhello.greet");
    // The selection is the page's (?node=): new steps go after it once the page says so.
    await expect(page.getByText("New steps go after sayhello.greet.")).toBeVisible();
    await expect(page).toHaveURL(/node=s3\.0$/);
    await page.getByRole("button", { name: "Add branch" }).click();
    const branch = page.getByRole("dialog", { name: "Add a branch" });
    await branch.getByLabel("Router").selectOption("ircot_check_end");
    await branch.getByLabel("States").fill("complete, incomplete");
    await branch.getByRole("button", { name: "Add branch" }).click();
    await expect(editor).toContainText("router: servers/router");
    await expect(editor).toContainText("incomplete: []");
    await expect(graph.getByLabel(/^branch router\.ircot_check_end/)).toBeVisible();
    // Inside the loop, after the greeting: the branch's states hang off it.
    await expect(editor).toContainText(/times: 3\s+steps:\s+- sayhello\.greet\s+- branch:/);

    // Deleting the loop takes its body (and the branch in it) with it.
    await pick(page, "loop ×3");
    await expect(page.getByText("New steps go after loop ×3.")).toBeVisible();
    await page.getByRole("button", { name: "Delete loop" }).click();
    await expect(graph.getByText("loop ×3")).toBeHidden();
    await expect(editor).not.toContainText("sayhello.greet");
    await expect(editor).not.toContainText("ircot_check_end");
    await expect(graph.getByText("retriever.bm25_search")).toBeVisible();
    await undoOwnEdits(page);
  });

  test("re-run a past run as it ran, then compare two runs: the changed parameter side by side", async ({ page }) => {
    await page.goto(`${pipelineUrl}?tab=runs`);
    const runs = page.getByRole("list", { name: "Runs" });
    const sampleRun = runs.getByRole("listitem").filter({ hasText: "sample · version 2" }).first();
    await sampleRun.getByRole("button", { name: /^Re-run the run of/ }).click();
    await expect(page).toHaveURL(/\/pipelines\/runs\/[0-9a-f-]{36}$/);
    expect(new URL(page.url()).pathname).not.toBe(runUrl);
    await expect(page.getByText("completed", { exact: true })).toBeVisible({ timeout: 30_000 });
    await expect(page.getByText(/on sample · version 2/)).toBeVisible();

    // Version 3 retrieves three passages; run it.
    await page.goto(`${pipelineUrl}?tab=parameters`);
    await page.getByRole("textbox", { name: "Results per question" }).fill("3");
    await page.getByRole("button", { name: "Save version" }).click();
    await expect(page.getByText("Saved version 3")).toBeVisible();
    await page.getByRole("button", { name: "Run" }).click();
    await page.getByRole("dialog", { name: "Run pipeline" }).getByRole("button", { name: "Start run" }).click();
    await expect(page.getByText("completed", { exact: true })).toBeVisible({ timeout: 30_000 });

    await page.goto(`${pipelineUrl}?tab=runs`);
    await expect(runs.getByRole("listitem").first()).toContainText("version 3");
    await expect(runs.getByRole("listitem").nth(1)).toContainText("version 2");
    await runs.getByRole("listitem").nth(1).getByRole("checkbox").check();
    await runs.getByRole("listitem").first().getByRole("checkbox").check();
    await page.getByRole("link", { name: "Compare the 2 runs" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Compare runs" })).toBeVisible();
    await expect(page.getByLabel("Run A")).toContainText("version 2");
    await expect(page.getByLabel("Run B")).toContainText("version 3");
    const changed = page.getByRole("table", { name: "Parameter differences" }).getByRole("row", { name: /top_k/ });
    await expect(changed).toHaveText(/retriever\.top_k\s*2\s*3/);
  });

  test("two members on a pipeline's page see each other there and talk in its chat", async ({ page, browser }) => {
    const pia = await inviteTeammate(page, browser, await workspaceOf(page), "Pia Pipeliner");
    try {
      await page.goto(pipelineUrl);
      await pia.page.goto(pipelineUrl);
      const inRoom = (p: Page) => p.getByRole("list", { name: "In this room" });
      await expect(inRoom(page).getByRole("img", { name: /Pia Pipeliner/ })).toBeVisible({ timeout: 30_000 });
      await expect(inRoom(pia.page).getByRole("img", { name: /Ada Lovelace/ })).toBeVisible();
      await pia.page.getByRole("textbox", { name: "Message", exact: true }).fill("I will tune top_k next");
      await pia.page.getByRole("button", { name: "Send", exact: true }).click();
      await expect(page.getByRole("list", { name: "Chat messages" })).toContainText("I will tune top_k next");
      // Leaving the page leaves the room.
      await pia.page.goto("/pipelines");
      await expect(inRoom(page).getByRole("img", { name: /Pia Pipeliner/ })).toBeHidden({ timeout: 30_000 });
    } finally {
      await pia.context.close();
    }
  });

  test("dark theme at 390 px: the gallery, a pipeline and a run fit and keep their parts", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: "dark" });
    for (const url of ["/pipelines", pipelineUrl, runUrl]) {
      await page.goto(url);
      await expect(page.locator("html")).toHaveClass(/dark/);
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      if (url === pipelineUrl)
        await expect(page.getByTestId("pipeline-graph").getByText("retriever.bm25_search")).toBeVisible();
      if (url === runUrl) await expect(page.getByRole("list", { name: "Steps" })).toBeVisible();
      await page.waitForLoadState("networkidle");
      expect(await pageWidth(page), `${url} scrolls sideways at 390 px`).toBeLessThanOrEqual(390);
    }
    await page.goto(pipelineUrl);
  });
});
