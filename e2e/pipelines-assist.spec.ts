import { expect, test } from "@playwright/test";
import os from "node:os";
import path from "node:path";
import { startScriptedServer, type ScriptedServer } from "../server/llm/scripted/server.ts";
import { signUpOrSignIn } from "./support/owner.ts";
import { trpc } from "./support/scripted-review.ts";

// The builder's assistant and knowledge bases in pipelines, on the scripted model: accept an
// assistant-proposed change and see graph and YAML follow; create a knowledge base, upload a document,
// "Try in a pipeline", run it and find the known passage among the sources. Light theme at 1280 px.
// It works in a workspace of its own (switched to, and back at the end), so the pipelines, bases and
// model connection it makes are not seen by the specs that follow (pipelines.spec.ts expects a
// workspace without pipelines of its own), and theirs do not answer here.
test.describe.configure({ mode: "serial" });

const ownerState = path.join(os.tmpdir(), `argus-e2e-pipelines-assist-${process.pid}.json`);

const BM25 = `servers:
  benchmark: servers/benchmark
  retriever: servers/retriever
pipeline:
  - benchmark.get_data
  - retriever.retriever_init
  - retriever.bm25_index
  - retriever.bm25_search
`;
const WITH_RERANKER = `servers:
  benchmark: servers/benchmark
  retriever: servers/retriever
  reranker: servers/reranker
pipeline:
  - benchmark.get_data
  - retriever.retriever_init
  - retriever.bm25_index
  - retriever.bm25_search
  - reranker.reranker_init
  - reranker.reranker_rerank
`;
const PASSAGE = "The foghorn is tested every second Sunday at noon.";
const DOC = `# Foghorn checks\n\n${PASSAGE}\n\nThe keeper logs each test in the red book.\n`;

let llm: ScriptedServer;
/** The workspace this spec works in, and the one the owner had before. */
let workspaceId = "";
let previousWorkspaceId = "";

test.beforeAll(async () => {
  llm = await startScriptedServer({
    script: {
      rules: [
        {
          match: "Change requested: add a reranker",
          text: JSON.stringify({ summary: "Adds a reranker after BM25 retrieval.", yaml: WITH_RERANKER }),
        },
        {
          match: "Change requested: retrieve 2",
          text: JSON.stringify({ summary: "Retrieves two passages.", parameters: { retriever: { top_k: 2 } } }),
        },
        // The knowledge-base pipeline's generation step.
        { match: "foghorn", text: "It is tested every second Sunday [1]. \\boxed{every second Sunday}" },
      ],
    },
  });
});
test.afterAll(async ({ browser }) => {
  await llm?.close();
  if (!previousWorkspaceId) return;
  const ctx = await browser.newContext({ storageState: ownerState });
  await trpc(ctx.request, "workspaces.switch", { workspaceId: previousWorkspaceId }).catch(() => undefined);
  await ctx.close();
});

test("the owner is signed in, in a workspace of this spec's own", async ({ page }) => {
  await signUpOrSignIn(page);
  await page.context().storageState({ path: ownerState });
  const me = await (await page.request.get("/api/trpc/account.me")).json();
  previousWorkspaceId = me.result.data.currentWorkspaceId as string;
  workspaceId = (await trpc<{ id: string }>(page.request, "workspaces.create", { name: `Assist ${Date.now()}` })).id;
  await trpc(page.request, "workspaces.switch", { workspaceId });
});

test.describe("signed in as the owner", () => {
  test.use({ storageState: ownerState, viewport: { width: 1280, height: 860 }, colorScheme: "light" });

  test("the assistant proposes a change, shown as a diff; accepting it moves YAML and graph", async ({ page }) => {
    const forked = await trpc<{ uid: string }>(page.request, "pipelines.create", {
      workspaceId,
      name: `assisted_${Date.now().toString(36)}`,
      source: BM25,
    });

    // Without a model the panel says how to configure one.
    await page.goto(`/pipelines/${forked.uid}?tab=assistant`);
    const noModel = page.getByText("The assistant needs a model.");
    const connectionUid = crypto.randomUUID();
    if (await noModel.isVisible().catch(() => false))
      await expect(page.getByRole("link", { name: "Settings → Model providers" })).toBeVisible();

    await trpc(page.request, "providers.save", {
      workspaceId,
      uid: connectionUid,
      name: "0 scripted assistant", // sorts first: the workspace's model
      provider: "openai-compatible",
      baseUrl: llm.openaiBaseURL,
      model: "scripted-model",
      apiKey: "sk-scripted",
    });
    try {
      await page.reload();
      await page.getByLabel("Describe a change").fill("add a reranker after retrieval");
      await page.getByRole("button", { name: "Propose a change" }).click();
      const proposal = page.getByRole("region", { name: "Proposed change" });
      await expect(proposal).toContainText("Adds a reranker after BM25 retrieval.");
      const diff = proposal.getByLabel("Proposed YAML diff");
      await expect(diff.locator('[data-kind="add"]')).toHaveText([
        /reranker: servers\/reranker/,
        /- reranker.reranker_init/,
        /- reranker.reranker_rerank/,
      ]);
      // Nothing changed until it is accepted.
      const graph = page.getByTestId("pipeline-graph");
      await expect(graph.getByText("reranker.reranker_rerank")).toHaveCount(0);

      await proposal.getByRole("button", { name: "Accept" }).click();
      await expect(proposal).toBeHidden();
      await expect(graph.getByText("reranker.reranker_rerank")).toBeVisible();
      await expect(page.getByText("unsaved changes")).toBeVisible();
      await page.getByRole("tab", { name: "YAML" }).click();
      await expect(page.getByRole("textbox", { name: "Pipeline YAML" })).toContainText("- reranker.reranker_rerank");
      await expect(page.getByText("valid", { exact: true })).toBeVisible();

      // A second proposal, rejected: the draft stays as it is.
      await page.getByRole("tab", { name: "Assistant" }).click();
      await page.getByLabel("Describe a change").fill("retrieve 2 passages");
      await page.getByRole("button", { name: "Propose a change" }).click();
      await expect(proposal.getByLabel("Proposed parameters diff").locator('[data-kind="add"]')).toContainText([
        /top_k: 2/,
      ]);
      await proposal.getByRole("button", { name: "Reject" }).click();
      await expect(proposal).toBeHidden();
      await page.getByRole("tab", { name: "Parameters" }).click();
      await page.getByText(/^Parameter file/).click();
      await expect(page.getByLabel("Parameter file")).not.toContainText("top_k: 2");
    } finally {
      await trpc(page.request, "providers.delete", { uid: connectionUid });
    }
  });

  test("a knowledge base tried in a pipeline: the run retrieves the known passage", async ({ page }) => {
    await page.goto("/knowledge");
    await page.getByRole("button", { name: "New knowledge base" }).first().click();
    const name = `Foghorn log ${Date.now().toString(36)}`;
    await page.getByRole("textbox", { name: "Name", exact: true }).fill(name);
    await page.getByRole("button", { name: "Create knowledge base" }).click();
    await expect(page).toHaveURL(/\/knowledge\/[0-9a-f-]{36}$/);
    await page
      .getByLabel("Documents to upload")
      .setInputFiles([{ name: "foghorn.md", mimeType: "text/markdown", buffer: Buffer.from(DOC) }]);
    const row = page.getByRole("table", { name: "Documents" }).getByRole("row").filter({ hasText: "foghorn.md" });
    await expect(row).toContainText("ready", { timeout: 30_000 });

    await page.getByRole("button", { name: "Try in a pipeline" }).click();
    await expect(page).toHaveURL(/\/pipelines\/[0-9a-f-]{36}$/);
    await expect(page.getByRole("heading", { level: 1, name: "RAG over a knowledge base" })).toBeVisible();
    await page.getByRole("tab", { name: "Parameters" }).click();
    const retriever = page.getByRole("region", { name: "retriever parameters" });
    await expect(retriever.getByRole("textbox", { name: "Source", exact: true })).toHaveValue(`kb:${name}`);
    await expect(retriever.getByLabel("collection_name: knowledge base")).toHaveValue(`kb:${name}`);

    const generation = page.getByRole("region", { name: "generation parameters" });
    await generation.getByRole("textbox", { name: "OpenAI-compatible API · Base URL" }).fill(llm.openaiBaseURL);
    await generation.getByRole("textbox", { name: "OpenAI-compatible API · Model" }).fill("scripted");
    await generation.getByLabel("OpenAI-compatible API · API key").fill("sk-scripted-key");
    await page.getByRole("button", { name: "Save version" }).click();
    await expect(page.getByText("Saved version 2")).toBeVisible();

    await page.getByRole("button", { name: "Run" }).click();
    const dialog = page.getByRole("dialog", { name: "Run pipeline" });
    await dialog.getByLabel("Ask one question").check();
    await dialog.getByLabel("Question", { exact: true }).fill("When is the foghorn tested?");
    await dialog.getByRole("button", { name: "Start run" }).click();
    await expect(page).toHaveURL(/\/pipelines\/runs\/[0-9a-f-]{36}$/);
    const search = page.getByRole("list", { name: "Steps" }).locator('[data-step="retriever.retriever_search"]');
    await search.getByText(/\d+ sources/).click({ timeout: 30_000 });
    await expect(page.getByRole("list", { name: "Sources of retriever.retriever_search" })).toContainText(PASSAGE);
    await expect(page.getByText("completed", { exact: true })).toBeVisible({ timeout: 30_000 });
  });
});
