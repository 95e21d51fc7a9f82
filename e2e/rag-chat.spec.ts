import { expect, test } from "@playwright/test";
import { readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startScriptedServer, type ScriptedServer } from "../server/llm/scripted/server.ts";
import { zipEntryText } from "../test/helpers/unzip.ts";
import { signUpOrSignIn } from "./support/owner.ts";

// Chat with a pipeline (issue 16 item 5): a forked RAG-with-citations pipeline on the scripted model,
// two turns (the second carries the first to the model), sources with citations, rename, the
// Markdown and .docx exports, the deep link, delete. Named to run after pipelines.spec.ts, whose
// first test expects a workspace without pipelines of its own.
test.describe.configure({ mode: "serial" });

const ownerState = path.join(os.tmpdir(), `argus-e2e-rag-chat-${process.pid}.json`);

test("the owner is signed in", async ({ page }) => {
  await signUpOrSignIn(page);
  await page.context().storageState({ path: ownerState });
});

test.describe("signed in as the owner", () => {
  test.use({ storageState: ownerState, viewport: { width: 1400, height: 900 } });

  let llm: ScriptedServer;
  test.beforeAll(async () => {
    llm = await startScriptedServer({
      script: {
        rules: [
          { match: "How tall", text: ["It is ", "8,849 metres ", "tall [1]."], chunkDelayMs: 700 },
          { text: ["Mount Everest ", "is the highest mountain [1]."] },
        ],
      },
    });
  });
  test.afterAll(async () => {
    await llm?.close();
  });

  test("chat with a pipeline for two turns, with sources; rename, export and delete the session", async ({ page }) => {
    test.setTimeout(120_000);
    // A pipeline that answers with citations, pointed at the scripted model.
    await page.goto("/pipelines/gallery/rag_citation");
    await page.getByRole("button", { name: "Fork to edit" }).click();
    const fork = page.getByRole("dialog", { name: "Fork pipeline" });
    await fork.getByLabel("Name").fill("chat_citations");
    await fork.getByRole("button", { name: "Fork" }).click();
    await expect(page).toHaveURL(/\/pipelines\/[0-9a-f-]{36}$/);
    await page.getByRole("tab", { name: "Parameters" }).click();
    const generation = page.getByRole("region", { name: "generation parameters" });
    await generation.getByRole("textbox", { name: "OpenAI-compatible API · Base URL" }).fill(llm.openaiBaseURL);
    await generation.getByRole("textbox", { name: "OpenAI-compatible API · Model" }).fill("scripted");
    await generation.getByLabel("OpenAI-compatible API · API key").fill("sk-scripted-key");
    await page.getByRole("button", { name: "Save version" }).click();
    await expect(page.getByText("Saved version 2")).toBeVisible();

    // Pick it; the pipelines that cannot chat are listed apart, with why.
    await page.goto("/pipelines");
    await page.getByRole("link", { name: "Chat with a pipeline" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Chat with a pipeline" })).toBeVisible();
    await page.getByText("Not offered:").click();
    await expect(
      page
        .getByRole("list", { name: "Pipelines that cannot chat" })
        .getByRole("listitem")
        .filter({ hasText: "bm25_search.yaml" }),
    ).toContainText("writes no answer");
    const offered = page.getByRole("list", { name: "Pipelines that can chat" });
    await expect(page.getByRole("button", { name: "Start chat" })).toBeDisabled();
    await offered.getByRole("radio", { name: /chat_citations\.yaml · this workspace/ }).check();
    await page.getByRole("button", { name: "Start chat" }).click();
    await expect(page).toHaveURL(/\/pipelines\/chat\/[0-9a-f-]{36}$/);
    const sessionUrl = new URL(page.url()).pathname;
    await expect(page.getByRole("heading", { name: "Ask your first question" })).toBeVisible();

    // Turn 1: Enter sends; the whole pipeline runs; the answer cites source 1.
    const box = page.getByRole("textbox", { name: "Your question" });
    await box.fill("Which mountain is the highest?");
    await box.press("Enter");
    const conversation = page.getByRole("list", { name: "Conversation" });
    await expect(conversation.getByTestId("answer-text").first()).toHaveText(
      "Mount Everest is the highest mountain [1].",
      { timeout: 30_000 },
    );
    const sources1 = page.getByRole("list", { name: "Sources of answer 1" });
    await expect(sources1.getByRole("listitem").first()).toContainText("[1]");
    await conversation.getByRole("link", { name: "Source 1" }).first().click();
    await expect(page).toHaveURL(/#source-[0-9a-f-]{36}-1$/);
    await sources1.getByRole("listitem").first().locator("summary").click();
    await expect(sources1.getByRole("listitem").first()).toContainText("highest mountain on Earth");

    // Shift+Enter is a new line, not a send; then Enter sends the follow-up, which streams in.
    await box.fill("How tall");
    await box.press("Shift+Enter");
    await box.pressSequentially("is it?");
    await expect(box).toHaveValue("How tall\nis it?");
    await expect(conversation.locator(":scope > li")).toHaveCount(2);
    await box.press("Enter");
    await expect(box).toHaveValue("");
    await expect(conversation.locator('[aria-busy="true"]')).toContainText("It is 8,849", { timeout: 30_000 });
    await expect(conversation.getByTestId("answer-text").nth(1)).toHaveText("It is 8,849 metres tall [1].", {
      timeout: 30_000,
    });
    await expect(page.getByRole("list", { name: "Sources of answer 2" }).getByRole("listitem")).toHaveCount(1);
    // The second request carried the first turn, as UltraRAG's multi-turn chat sends it.
    const chats = llm.requests.filter((r) => r.api === "chat");
    const last = chats[chats.length - 1]!.body.messages as { role: string; content: unknown }[];
    const text = (c: unknown) => (typeof c === "string" ? c : JSON.stringify(c));
    expect(last.filter((m) => m.role !== "system").map((m) => [m.role, text(m.content)])).toEqual([
      ["user", expect.stringContaining("Which mountain is the highest?")],
      ["assistant", expect.stringContaining("Mount Everest is the highest mountain [1].")],
      ["user", expect.stringMatching(/How tall(\n|\\n)is it\?/)],
    ]);

    // Listed (newest first) under its first question; renamed.
    const sessions = page.getByRole("list", { name: "Sessions" });
    await expect(sessions.getByRole("listitem").first()).toContainText("Which mountain is the highest?");
    await page.getByRole("button", { name: "Rename" }).click();
    const rename = page.getByRole("dialog", { name: "Rename session" });
    await rename.getByLabel("Name").fill("Everest facts");
    await rename.getByRole("button", { name: "Rename" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Everest facts" })).toBeVisible();
    await expect(sessions.getByRole("listitem").first()).toContainText("Everest facts");

    // Exports: Markdown and .docx, both with the turns and the numbered sources.
    const [md] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Markdown" }).click(),
    ]);
    expect(md.suggestedFilename()).toBe("Everest-facts.md");
    const markdown = await readFile(await md.path(), "utf8");
    expect(markdown).toContain("# Everest facts");
    expect(markdown).toContain("## 1. Question\n\nWhich mountain is the highest?");
    expect(markdown).toContain("Mount Everest is the highest mountain [\\[1\\]](#turn-1-source-1).");
    expect(markdown).toContain("It is 8,849 metres tall [\\[1\\]](#turn-2-source-1).");
    expect(markdown).toMatch(/<a id="turn-1-source-1"><\/a>\*\*\[1\]\*\* Mount Everest/);
    const [docx] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: ".docx" }).click(),
    ]);
    expect(docx.suggestedFilename()).toBe("Everest-facts.docx");
    const xml = await zipEntryText(await readFile(await docx.path()), "word/document.xml");
    expect(xml).toContain("Which mountain is the highest?");
    expect(xml).toContain("It is 8,849 metres tall ");
    expect(xml).toMatch(/<w:hyperlink [^>]*w:anchor="turn1_source1"/);
    expect(xml).toContain('w:name="turn1_source1"');

    // The deep link opens the same session.
    await page.goto(sessionUrl);
    await expect(page.getByRole("heading", { level: 1, name: "Everest facts" })).toBeVisible();
    await expect(conversation.getByTestId("answer-text")).toHaveCount(2);

    // Delete, confirmed: gone from the list.
    await page.getByRole("button", { name: "Delete session" }).click();
    const confirm = page.getByRole("dialog", { name: "Delete this session?" });
    await confirm.getByRole("button", { name: "Delete session" }).click();
    await expect(page).toHaveURL(/\/pipelines\/chat$/);
    await expect(page.getByRole("navigation", { name: "Chat sessions" })).not.toContainText("Everest facts");
  });
});
