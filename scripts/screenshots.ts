/**
 * `npm run screenshots` retakes the README's pictures in docs/screenshots/ (a review, the pipelines): the real server
 * (built UI, a throwaway SQLite database and data folder), Debian's Chromium at 1280×800 in the light
 * theme (and one phone-sized page in the dark theme), the scripted model for everything that needs one.
 * Each page is driven the way a person would, then shot once it shows what the picture is of:
 *
 *   gallery.png              the pipeline gallery
 *   pipeline-graph.png       IRCoT's graph: a loop and a branch
 *   builder.png              a fork in the builder, a typo shown at its line in the YAML editor
 *   builder-assistant.png    the builder's assistant: a proposed change shown as a diff
 *   live-run.png             a finished RAG run: its trace with streamed text, sources and a case
 *   pipeline-chat.png        a chat session with a pipeline, two turns with sources
 *   knowledge-base.png       a knowledge base with an indexed document
 *   pipeline-phone-dark.png  a pipeline at 390 px in the dark theme
 *   review.png               a finished agent review of the demo project: findings first, the score
 *                            with its scale, the agent's activity beside them, the team chat aside
 *
 * Not a test: it asserts only what it must wait for. Options: SCREENSHOTS_DIR (default
 * docs/screenshots), SCREENSHOTS_ONLY=gallery,builder (a subset; the others are still walked through
 * when later pictures depend on them), CHROMIUM (default /usr/bin/chromium).
 */
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { buildIfNeeded } from "../server/cli/build.ts";
import { startScriptedServer } from "../server/llm/scripted/server.ts";
import { repoRoot, startServer } from "../server/main.ts";
import { createTestConfig } from "../test/helpers/db.ts";
import { signUp, type TestUser } from "../test/helpers/server.ts";

const outDir = path.resolve(process.env.SCREENSHOTS_DIR ?? path.join(repoRoot, "docs/screenshots"));
const only = new Set((process.env.SCREENSHOTS_ONLY ?? "").split(",").filter(Boolean));
const VIEWPORT = { width: 1280, height: 800 };
const TIMEOUT = 30_000;

const DOC = `# Harbour handbook

## Lighthouse

The lighthouse lamp is cleaned every Tuesday. The foghorn is tested every second Sunday at noon.

## Moorings

The harbour budget covers new mooring ropes and a radio.
`;

/** The sample data set's questions (pipelines/data/questions.jsonl) and the answer the model gives. */
const SAMPLE_ANSWERS = [
  ["Who discovered penicillin?", "Alexander Fleming"],
  ["What is the highest mountain on Earth?", "Mount Everest"],
  ["Which river carries the most water in the world?", "Amazon"],
  ["When was the Eiffel Tower completed?", "1889"],
  ["Who introduced movable type printing to Europe?", "Johannes Gutenberg"],
] as const;

/** What the assistant proposes for the BM25 fork: the same file with a reranker after retrieval. */
const bm25 = readFileSync(path.join(repoRoot, "pipelines/bm25_search.yaml"), "utf8");
const WITH_RERANKER = bm25
  .replace("  retriever: servers/retriever\n", "  retriever: servers/retriever\n  reranker: servers/reranker\n")
  .replace(
    "  - retriever.bm25_search\n",
    "  - retriever.bm25_search\n  - reranker.reranker_init\n  - reranker.reranker_rerank\n",
  );

/** Runs a wait; when it times out, says what was being waited for and on which page. */
async function waitFor(page: Page, what: string, fn: () => Promise<unknown>) {
  try {
    await fn();
  } catch (err) {
    throw new Error(`screenshots: waiting for ${what} on ${page.url()} failed: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

async function shoot(page: Page, name: string) {
  if (only.size && !only.has(name)) return;
  // No toast over the picture (they close by themselves), fonts loaded, the last frame drawn.
  await page.locator("[data-sonner-toast]").first().waitFor({ state: "detached", timeout: TIMEOUT });
  await page.evaluate(() => document.fonts.ready.then(() => new Promise((r) => requestAnimationFrame(r))));
  const file = path.join(outDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}

/** The graph drawn and fitted for what the page shows (see pipeline-graph.tsx). */
const graphReady = (page: Page) =>
  page.getByTestId("pipeline-graph").and(page.locator('[data-layout="ready"]')).waitFor({ timeout: TIMEOUT });

/** Forks a gallery pipeline from its page and returns the fork's path. */
async function fork(page: Page, key: string, name: string) {
  await page.goto(`/pipelines/gallery/${key}`);
  await page.getByRole("button", { name: "Fork to edit" }).click();
  const dialog = page.getByRole("dialog", { name: "Fork pipeline" });
  await dialog.getByLabel("Name").fill(name);
  await dialog.getByRole("button", { name: "Fork" }).click();
  await page.waitForURL(/\/pipelines\/[0-9a-f-]{36}$/);
  return new URL(page.url()).pathname;
}

/** Points the pipeline's generation step at the scripted model and saves a version. */
async function useScriptedModel(page: Page, baseUrl: string) {
  await page.getByRole("tab", { name: "Parameters" }).click();
  const generation = page.locator("details", { has: page.locator("summary", { hasText: /^generation$/ }) });
  await generation.locator("summary").click();
  await generation.getByRole("textbox", { name: "backend_configs.openai.base_url string" }).fill(baseUrl);
  await generation.getByRole("textbox", { name: "backend_configs.openai.model_name string" }).fill("scripted");
  await generation.getByLabel("backend_configs.openai.api_key secret").fill("sk-scripted-key");
  await page.getByRole("button", { name: "Save version" }).click();
  await page.getByText("Saved version 2").waitFor({ timeout: TIMEOUT });
}

async function galleryAndGraph(page: Page) {
  await page.goto("/pipelines");
  await page.getByRole("list", { name: "Gallery pipelines" }).getByRole("listitem").first().waitFor();
  await shoot(page, "gallery");

  await page.goto("/pipelines/gallery/ircot");
  await graphReady(page);
  await shoot(page, "pipeline-graph");
}

async function builder(page: Page) {
  await fork(page, "bm25_search", "my_bm25");
  await graphReady(page);
  const editor = page.getByRole("textbox", { name: "Pipeline YAML" });
  await editor.getByText("- retriever.bm25_search").click();
  await page.keyboard.press("End");
  await page.keyboard.type("x");
  await waitFor(page, "the problem at its line", () =>
    page.locator(".cm-lintRange-error").waitFor({ timeout: TIMEOUT }),
  );
  await page.getByRole("list", { name: "Problems" }).waitFor();
  await shoot(page, "builder");
  await page.keyboard.press("Backspace");
  await page.getByText("valid", { exact: true }).waitFor({ timeout: TIMEOUT });
  return new URL(page.url()).pathname;
}

/** The workspace's model is the scripted one (its first connection by name); the assistant proposes. */
async function assistant(page: Page, owner: TestUser, pipelinePath: string, baseUrl: string) {
  await owner.client.ok("mutate", "providers.save", {
    workspaceId: owner.workspaceId,
    uid: crypto.randomUUID(),
    name: "Scripted model",
    provider: "openai-compatible",
    baseUrl,
    model: "scripted-model",
    apiKey: "sk-scripted",
  });
  await page.goto(`${pipelinePath}?tab=assistant`);
  await graphReady(page);
  await page.getByLabel("Describe a change").fill("add a reranker after retrieval");
  await page.getByRole("button", { name: "Propose a change" }).click();
  await waitFor(page, "the proposal", () =>
    page
      .getByRole("region", { name: "Proposed change" })
      .getByLabel("Proposed YAML diff")
      .waitFor({ timeout: TIMEOUT }),
  );
  await shoot(page, "builder-assistant");
}

async function run(page: Page, baseUrl: string) {
  await fork(page, "vanilla_rag", "everest_rag");
  await useScriptedModel(page, baseUrl);
  await page.getByRole("button", { name: "Run" }).click();
  await page.getByRole("dialog", { name: "Run pipeline" }).getByRole("button", { name: "Start run" }).click();
  await page.waitForURL(/\/pipelines\/runs\/[0-9a-f-]{36}$/);
  await waitFor(page, "the run to complete", () =>
    page.getByText("completed", { exact: true }).waitFor({ timeout: TIMEOUT }),
  );
  const steps = page.getByRole("list", { name: "Steps" });
  await steps
    .getByText(/^\d+ sources$/)
    .first()
    .click();
  await page.getByRole("heading", { name: /^Case 1 of / }).waitFor();
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("All five right on the sample: acc 1.0");
  await page.getByRole("button", { name: "Send", exact: true }).click();
  await page.getByRole("list", { name: "Chat messages" }).getByText("All five right").waitFor();
  await steps.locator('[data-step="generation.generate"]').scrollIntoViewIfNeeded();
  await shoot(page, "live-run");
}

async function chat(page: Page, baseUrl: string) {
  await fork(page, "rag_citation", "chat_citations");
  await useScriptedModel(page, baseUrl);
  await page.goto("/pipelines/chat");
  await page
    .getByRole("list", { name: "Pipelines that can chat" })
    .getByRole("radio", { name: /chat_citations\.yaml · this workspace/ })
    .check();
  await page.getByRole("button", { name: "Start chat" }).click();
  await page.waitForURL(/\/pipelines\/chat\/[0-9a-f-]{36}$/);
  const box = page.getByRole("textbox", { name: "Your question" });
  const answers = page.getByRole("list", { name: "Conversation" }).getByTestId("answer-text");
  await box.fill("Which mountain is the highest?");
  await box.press("Enter");
  await waitFor(page, "the first answer", () =>
    answers.nth(0).filter({ hasText: "[1]" }).waitFor({ timeout: TIMEOUT }),
  );
  await box.fill("How tall is it?");
  await box.press("Enter");
  await waitFor(page, "the second answer", () =>
    answers.nth(1).filter({ hasText: "8,849" }).waitFor({ timeout: TIMEOUT }),
  );
  await page
    .getByRole("list", { name: "Sources of answer 1" })
    .getByRole("listitem")
    .first()
    .locator("summary")
    .click();
  await shoot(page, "pipeline-chat");
}

async function knowledgeBase(page: Page) {
  await page.goto("/knowledge");
  await page.getByRole("button", { name: "New knowledge base" }).first().click();
  await page.getByRole("textbox", { name: "Name", exact: true }).fill("Harbour handbook");
  await page.getByLabel("Description").fill("How the harbour is run");
  await page.getByRole("button", { name: "Create knowledge base" }).click();
  await page.waitForURL(/\/knowledge\/[0-9a-f-]{36}$/);
  await page
    .getByLabel("Documents to upload")
    .setInputFiles([{ name: "handbook.md", mimeType: "text/markdown", buffer: Buffer.from(DOC) }]);
  const row = page.getByRole("table", { name: "Documents" }).getByRole("row").filter({ hasText: "handbook.md" });
  await waitFor(page, "the document indexed", () => row.getByText("ready").waitFor({ timeout: TIMEOUT }));
  await page.getByLabel("Search the documents").fill("foghorn");
  await page.getByRole("list", { name: "Search results" }).getByRole("listitem").first().waitFor();
  await shoot(page, "knowledge-base");
}

/** What the scripted model reports on the demo project: its SQL injection. */
const DEMO_REPORT = {
  summary: "One SQL injection in the item search: the name parameter goes straight into the SQL text.",
  overall_score: 55,
  category_scores: { security: 40 },
  findings: [
    {
      title: "SQL injection in find_items",
      severity: "critical",
      confidence: 0.9,
      category: "security",
      file: "src/api.py",
      start_line: 19,
      end_line: 19,
      evidence: `cursor.execute(f"SELECT id, name, stock FROM items WHERE name LIKE '%{name}%'")`,
      explanation: "The name parameter goes straight into the SQL text.",
      suggested_fix: "Use a parameterised query.",
    },
  ],
};

/** An agent review of the demo project on the scripted model, finished, its page as the team sees it. */
async function review(page: Page, owner: TestUser, llmUrl: string) {
  const call = async <T>(p: string, input: unknown): Promise<T> => {
    const res = await page.request.post(`/api/trpc/${p}`, { data: input });
    if (!res.ok()) throw new Error(`${p}: ${res.status()} ${await res.text()}`);
    return ((await res.json()) as { result: { data: T } }).result.data;
  };
  const connectionUid = crypto.randomUUID();
  await call("providers.save", {
    workspaceId: owner.workspaceId,
    uid: connectionUid,
    name: "Claude (scripted)",
    provider: "anthropic",
    baseUrl: llmUrl,
    model: "claude-sonnet-5-5",
    apiKey: "sk-scripted-key",
  });
  const demo = await call<{ projectUid: string }>("projects.startDemo", { workspaceId: owner.workspaceId });
  const { uid } = await call<{ uid: string }>("reviews.start", {
    projectUid: demo.projectUid,
    engine: "agent",
    connectionUid,
    settings: { verify: false },
  });
  await page.goto(`/reviews/${uid}`);
  await waitFor(page, "the review to complete", () =>
    page.locator('[data-status="completed"]').first().waitFor({ timeout: 120_000 }),
  );
  await page.getByRole("list", { name: "Findings" }).getByRole("listitem").first().waitFor();
  await page.getByRole("textbox", { name: "Message" }).fill("Confirmed on staging: `src/api.py:19` takes any name.");
  await page.getByRole("button", { name: "Send", exact: true }).click();
  await page.getByRole("list", { name: "Chat messages" }).getByText("Confirmed on staging").waitFor();
  await shoot(page, "review");
}

async function phoneDark(context: BrowserContext, pipelinePath: string) {
  const page = await context.newPage();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.emulateMedia({ colorScheme: "dark" });
  await page.goto(pipelinePath);
  await page.locator("html.dark").waitFor({ state: "attached" });
  await graphReady(page);
  await shoot(page, "pipeline-phone-dark");
  await page.close();
}

async function main() {
  mkdirSync(outDir, { recursive: true });
  buildIfNeeded(repoRoot, (m) => console.error(m));
  const llm = await startScriptedServer({
    script: {
      rules: [
        {
          match: "Change requested: add a reranker",
          text: JSON.stringify({ summary: "Adds a reranker after BM25 retrieval.", yaml: WITH_RERANKER }),
        },
        // The review of the demo project: a search for the SQL, then the report.
        { match: "Review scope", toolCalls: [{ name: "grep", input: { pattern: "execute" } }] },
        {
          match: "cursor.execute",
          text: `The search endpoint builds its SQL from the request.\nREPORT: ${JSON.stringify(DEMO_REPORT)}`,
        },
        { match: "How tall", text: ["It is ", "8,849 metres ", "tall [1]."] },
        { match: "Which mountain is the highest?", text: ["Mount Everest ", "is the highest mountain [1]."] },
        // The sample's five questions, each answered right.
        ...SAMPLE_ANSWERS.map(([question, answer]) => ({
          match: question,
          text: ["The passages say so: ", `\\boxed{${answer}}`],
        })),
      ],
    },
  });
  const testDb = await createTestConfig({ PIPELINES_ALLOWED_HOSTS: "127.0.0.1,localhost", LOG_LEVEL: "warn" });
  const server = await startServer({ config: testDb.config, ui: true });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--no-first-run"],
  });
  try {
    const owner = await signUp(server.url, { name: "Ada Lovelace" });
    const context = await browser.newContext({ baseURL: server.url, viewport: VIEWPORT, colorScheme: "light" });
    context.setDefaultTimeout(TIMEOUT);
    const signedIn = await context.request.post("/api/auth/sign-in/email", {
      data: { email: owner.email, password: owner.password },
      headers: { origin: server.url },
    });
    if (!signedIn.ok()) throw new Error(`sign-in failed: ${signedIn.status()} ${await signedIn.text()}`);
    const page = await context.newPage();
    await review(page, owner, llm.url);
    // SCREENSHOTS_ONLY=review: the pipeline pictures (and the walk that leads to them) are left out.
    if (!(only.size === 1 && only.has("review"))) {
      await galleryAndGraph(page);
      const forked = await builder(page);
      await assistant(page, owner, forked, llm.openaiBaseURL);
      await run(page, llm.openaiBaseURL);
      await chat(page, llm.openaiBaseURL);
      await knowledgeBase(page);
      await phoneDark(context, forked);
    }
    await context.close();
  } finally {
    await browser.close();
    await server.close();
    await llm.close();
    await testDb.cleanup();
  }
}

await main();
process.exit(0);
