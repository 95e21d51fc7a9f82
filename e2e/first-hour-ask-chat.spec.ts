import { expect, test, type Page } from "@playwright/test";
import { startScriptedServer, type ScriptedServer } from "../server/llm/scripted/server.ts";
import { signUpOrSignIn } from "./support/owner.ts";
import { inOwnWorkspace } from "./support/own-workspace.ts";
import { trpc, workspaceOf } from "./support/scripted-review.ts";

inOwnWorkspace("Ask where you asked");

// Issue 28, point 7: `@argus` in a room's chat answers in that chat, under the message that asked —
// streamed, its tool calls folded — with a link that opens the thread in the Ask Argus panel; the
// same question asked twice gives two thread chips that do not read the same.
const ANSWER = "Passwords are hashed in `hashPassword` with MD5, at src/server.js:31-33. MD5 is fast, so it is weak.";

let llm: ScriptedServer;
test.beforeAll(async () => {
  llm = await startScriptedServer({
    script: [
      { match: "createHash", text: ANSWER, chunkDelayMs: 150 },
      { match: "/passwords hashed/i", toolCalls: [{ name: "read_file", input: { path: "src/server.js" } }] },
    ],
  });
});
test.afterAll(async () => {
  await llm?.close();
});

async function say(page: Page, text: string) {
  await page.getByRole("textbox", { name: "Message" }).fill(text);
  await page.getByRole("button", { name: "Send", exact: true }).click();
}

test("@argus in the team chat answers under the message, streamed, tool calls folded, with a link to the panel", async ({
  page,
}) => {
  test.setTimeout(180_000);
  await signUpOrSignIn(page);
  const workspaceId = await workspaceOf(page);
  await trpc(page.request, "providers.save", {
    workspaceId,
    uid: crypto.randomUUID(),
    name: "scripted",
    provider: "anthropic",
    baseUrl: llm.url,
    model: "claude-sonnet-4-5",
    apiKey: "sk-test",
  });
  const demo = await trpc<{ projectUid: string }>(page.request, "projects.startDemo", { workspaceId });
  await page.goto(`/projects/${demo.projectUid}`);
  const chat = page.getByRole("list", { name: "Chat messages" });
  await expect(page.getByRole("textbox", { name: "Message" })).toBeEnabled({ timeout: 60_000 });

  await say(page, "@argus where are passwords hashed?");
  const asked = chat.locator("li", { hasText: "where are passwords hashed?" }).first();
  const answer = asked.getByRole("group", { name: "Argus's answer" });
  // Streamed: the first words show while it is still being written.
  await expect(answer.and(page.locator('[data-status="running"]'))).toContainText("Passwords are hashed", {
    timeout: 30_000,
  });
  await expect(answer).toHaveAttribute("data-status", "done", { timeout: 30_000 });
  await expect(answer).toContainText("MD5 is fast, so it is weak.");
  // The tool call is folded into one line, its details on request.
  const calls = answer.getByRole("list", { name: "Tool calls" });
  await expect(answer.getByText("1 tool call", { exact: true })).toBeVisible();
  await expect(calls).toBeHidden();
  await answer.getByText("1 tool call", { exact: true }).click();
  await expect(calls).toContainText("read_file(src/server.js)");

  // The link opens the thread in the Ask Argus panel.
  await answer.getByRole("link", { name: "Open in Ask Argus" }).click();
  const panel = page.getByRole("region", { name: "Conversations with Argus" });
  await expect(panel.getByRole("button", { name: "where are passwords hashed?", pressed: true })).toBeVisible();
  await expect(panel.getByRole("list", { name: "Conversation" })).toContainText("MD5 is fast");

  // The same question again: a second answer under the second message, and two chips that differ.
  await say(page, "@argus where are passwords hashed?");
  await expect(chat.getByRole("group", { name: "Argus's answer" })).toHaveCount(2, { timeout: 30_000 });
  const chips = panel.getByRole("list", { name: "Threads" }).getByRole("button");
  await expect(chips).toHaveCount(2);
  const texts = await chips.allTextContents();
  expect(new Set(texts).size).toBe(2);
});
