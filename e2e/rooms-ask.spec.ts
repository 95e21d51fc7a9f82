import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { startScriptedServer, type ScriptedServer } from "../server/llm/scripted/server.ts";
import { signUpOrSignIn } from "./support/owner.ts";

// Ask Argus with two members in one project room: first with no model (search results), then with
// the scripted model — `@argus where are passwords hashed?` in the team chat streams the answer and
// its tool call to both, a citation opens the code viewer at the cited lines, and the answer becomes
// a finding that shows on the review.

const ANSWER =
  "Passwords are hashed in `hashPassword` with MD5, at src/server.js:31-33. MD5 is fast, so it is weak for passwords; " +
  "the tests would be in src/auth.test.js:1-4.";

async function trpc<T>(request: APIRequestContext, path: string, input: unknown): Promise<T> {
  const res = await request.post(`/api/trpc/${path}`, { data: input });
  expect(res.status(), `${path}: ${await res.text()}`).toBe(200);
  return (await res.json()).result.data as T;
}

async function ask(p: Page, text: string) {
  await p.getByRole("textbox", { name: "Message" }).fill(text);
  await p.getByRole("button", { name: "Send", exact: true }).click();
}

test("two members ask Argus in a project room: search results without a model, then a streamed, cited answer that becomes a finding", async ({
  page,
  browser,
}) => {
  test.setTimeout(240_000);
  const llm: ScriptedServer = await startScriptedServer({
    script: [
      { match: "createHash", text: ANSWER, chunkDelayMs: 150 },
      {
        match: "/where are passwords hashed/i",
        toolCalls: [{ name: "read_file", input: { path: "src/server.js" } }],
        delayMs: 500,
      },
    ],
  });
  const member = await browser.newContext();
  let workspaceId: string | undefined;
  try {
    await signUpOrSignIn(page);
    const me = await page.request.get("/api/trpc/account.me");
    workspaceId = (await me.json()).result.data.workspaces[0].id as string;
    const invite = await trpc<{ token: string }>(page.request, "account.createInvite", { workspaceId, role: "member" });
    const bea = await member.newPage();
    await trpc(bea.request, "account.signUp", {
      name: "Bea Asker",
      email: `bea-ask-${Date.now()}@example.com`,
      password: "correct-horse-battery",
      inviteToken: invite.token,
    });
    // A fresh workspace for this spec, so other specs' provider connections do not answer here.
    const own = await trpc<{ id: string }>(page.request, "workspaces.create", { name: `Ask ${Date.now()}` });
    const inviteOwn = await trpc<{ token: string }>(page.request, "account.createInvite", {
      workspaceId: own.id,
      role: "member",
    });
    await trpc(bea.request, "account.acceptInvite", { token: inviteOwn.token });
    await trpc(page.request, "workspaces.switch", { workspaceId: own.id });
    await trpc(bea.request, "workspaces.switch", { workspaceId: own.id });
    const demo = await trpc<{ projectUid: string; review: { uid: string } }>(page.request, "projects.startDemo", {
      workspaceId: own.id,
    });

    await page.goto(`/projects/${demo.projectUid}`);
    await bea.goto(`/projects/${demo.projectUid}`);
    const panel = (p: Page) => p.getByRole("region", { name: "Conversations with Argus" });
    await expect(panel(page)).toBeVisible({ timeout: 30_000 });
    await expect(bea.getByRole("textbox", { name: "Message" })).toBeEnabled({ timeout: 30_000 });

    // No model yet: @argus answers with the best code-search hits, labelled, pointing to Settings.
    await ask(bea, "@argus where are passwords hashed?");
    for (const p of [page, bea]) {
      await expect(panel(p).getByText("search results, no model", { exact: true })).toBeVisible({ timeout: 30_000 });
      await expect(panel(p).getByRole("list", { name: "Search results" })).toContainText("src/server.js");
      await expect(panel(p).getByRole("link", { name: "Settings → Model providers" })).toHaveAttribute(
        "href",
        "/settings#model-providers",
      );
    }

    // A model: the scripted server in the Anthropic wire format.
    await trpc(page.request, "providers.save", {
      workspaceId: own.id,
      uid: crypto.randomUUID(),
      name: "scripted",
      provider: "anthropic",
      baseUrl: llm.url,
      model: "claude-sonnet-4-5",
      apiKey: "sk-test",
    });
    await ask(page, "@argus where are passwords hashed?");
    for (const p of [page, bea]) {
      const conversation = panel(p).getByRole("list", { name: "Conversation" });
      await expect(conversation.getByRole("list", { name: "Tool calls" })).toContainText(
        "read_file(path: src/server.js)",
        { timeout: 30_000 },
      );
      // Streamed: the first words show while the answer is still being written.
      await expect(conversation.locator('[data-status="running"]')).toContainText("Passwords are hashed", {
        timeout: 30_000,
      });
    }
    for (const p of [page, bea]) {
      const done = panel(p).locator('[data-status="done"]').filter({ hasText: "MD5 is fast" });
      await expect(done).toBeVisible({ timeout: 30_000 });
      // A citation whose file is not in the code is marked, not linked.
      await expect(done.getByRole("list", { name: "Cited code" })).toContainText("no such file in this snapshot");
    }

    // Bea opens the cited lines in the code viewer.
    const cited = panel(bea)
      .getByRole("list", { name: "Cited code" })
      .getByRole("link", { name: "src/server.js:31-33" });
    await expect(cited).toHaveAttribute("href", /file=src%2Fserver.js&line=31&end=33/);
    await cited.click();
    await expect(bea).toHaveURL(/line=31&end=33/);
    await expect(bea.locator("tr[data-marked]")).toHaveCount(3);
    await expect(bea.locator("#L31")).toContainText("function hashPassword");

    // Ada turns the answer into a finding on the demo's review: prefilled from the cited lines.
    await panel(page)
      .locator('[data-status="done"]')
      .filter({ hasText: "MD5 is fast" })
      .getByRole("button", {
        name: "Answer → finding",
      })
      .click();
    const dialog = page.getByRole("dialog", { name: "Answer → finding" });
    await expect(dialog.getByLabel("File")).toHaveValue("src/server.js");
    await expect(dialog.getByLabel("From line")).toHaveValue("31");
    await expect(dialog.getByLabel("To line")).toHaveValue("33");
    await expect(dialog.getByLabel("Category")).toHaveValue("security");
    await dialog.getByLabel("Title").fill("Passwords hashed with MD5");
    await dialog.getByRole("button", { name: "Save finding" }).click();
    await expect(page.getByText("Finding saved on the review")).toBeVisible();

    await page.goto(`/reviews/${demo.review.uid}`);
    const findings = page.getByRole("list", { name: "Findings" });
    await expect(findings).toContainText("Passwords hashed with MD5", { timeout: 30_000 });
    // The review page asks about its own findings, in its own conversations panel.
    await expect(panel(page)).toBeVisible();
    await findings.getByRole("button", { name: /Passwords hashed with MD5/ }).click();
    await expect(findings.getByRole("button", { name: "Ask about this finding" })).toBeVisible();

    // A share link's spectator watches the same review: no conversations with Argus, no way to ask.
    const link = await trpc<{ token: string }>(page.request, "shares.create", { reviewUid: demo.review.uid });
    const guest = await browser.newContext();
    try {
      const spectator = await guest.newPage();
      await spectator.goto(`/share/${link.token}`);
      const shared = spectator.getByRole("list", { name: "Findings" });
      await expect(shared).toContainText("Passwords hashed with MD5", { timeout: 30_000 });
      await shared.getByRole("button", { name: /Passwords hashed with MD5/ }).click();
      await expect(shared.getByRole("button", { name: "Ask about this finding" })).toHaveCount(0);
      await expect(panel(spectator)).toHaveCount(0);
      await expect(spectator.getByText("Ask Argus", { exact: true })).toHaveCount(0);
    } finally {
      await guest.close();
    }
  } finally {
    // The owner's current workspace is kept per user on the server: give the specs that follow theirs.
    if (workspaceId) await trpc(page.request, "workspaces.switch", { workspaceId }).catch(() => undefined);
    await member.close();
    await llm.close();
  }
});
