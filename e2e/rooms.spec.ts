import { expect, test, type APIRequestContext } from "@playwright/test";
import { startScriptedServer, type ScriptedServer } from "../server/llm/scripted/server.ts";
import { signUpOrSignIn } from "./support/owner.ts";

// Two members in one review room, with the scripted model: a chat message from one appears for the
// other, a pause holds the model's requests until resume, and a hint posted meanwhile reaches the
// next model request (the scripted server records every request).

const REPORT = {
  summary: "One SQL injection in the item search.",
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
    },
  ],
};
const HINT = "also check the auth middleware";

async function trpc<T>(request: APIRequestContext, path: string, input: unknown): Promise<T> {
  const res = await request.post(`/api/trpc/${path}`, { data: input });
  expect(res.status(), `${path}: ${await res.text()}`).toBe(200);
  return (await res.json()).result.data as T;
}

test("two members in one review room: chat, pause, and a hint that reaches the model", async ({ page, browser }) => {
  test.setTimeout(240_000);
  const llm: ScriptedServer = await startScriptedServer({
    script: [
      // First matching rule wins (by the last user message): the most specific first.
      { match: "review it critically", text: `REPORT: ${JSON.stringify(REPORT)}` },
      { match: HINT, text: `Checked the middleware too.\nREPORT: ${JSON.stringify(REPORT)}` },
      // Until the hint comes, the agent keeps looking around, a step every 1.5 s.
      { toolCalls: [{ name: "list_dir", input: { path: "." } }], delayMs: 1500 },
    ],
  });
  const member = await browser.newContext();
  try {
    await signUpOrSignIn(page);
    const me = await page.request.get("/api/trpc/account.me");
    const workspaceId = (await me.json()).result.data.workspaces[0].id as string;
    const invite = await trpc<{ token: string }>(page.request, "account.createInvite", { workspaceId, role: "member" });
    const bea = await member.newPage();
    await trpc(bea.request, "account.signUp", {
      name: "Bea Teammate",
      email: `bea-${Date.now()}@example.com`,
      password: "correct-horse-battery",
      inviteToken: invite.token,
    });

    const connectionUid = crypto.randomUUID();
    await trpc(page.request, "providers.save", {
      workspaceId,
      uid: connectionUid,
      name: `rooms ${connectionUid.slice(0, 6)}`,
      provider: "anthropic",
      baseUrl: llm.url,
      model: "claude-sonnet-4-5",
      apiKey: "sk-test",
    });
    const demo = await trpc<{ projectUid: string }>(page.request, "projects.startDemo", { workspaceId });
    const review = await trpc<{ uid: string }>(page.request, "reviews.start", {
      projectUid: demo.projectUid,
      engine: "agent",
      connectionUid,
      settings: { verify: false },
    });

    await page.goto(`/reviews/${review.uid}`);
    await bea.goto(`/reviews/${review.uid}`);
    // Each sees the other in the room.
    const inRoom = (p: typeof page) => p.getByRole("list", { name: "In this room" });
    await expect(inRoom(page).getByRole("img", { name: /Bea Teammate/ })).toBeVisible({ timeout: 30_000 });
    await expect(inRoom(bea).getByRole("img", { name: /Ada Lovelace/ })).toBeVisible();

    // A chat message from Bea appears for Ada, its path:line a link to the code viewer.
    await bea.getByRole("textbox", { name: "Message" }).fill("Look at src/api.py:19 <script>alert(1)</script>");
    await bea.getByRole("button", { name: "Send", exact: true }).click();
    const chat = page.getByRole("list", { name: "Chat messages" });
    await expect(chat).toContainText("Look at src/api.py:19", { timeout: 15_000 });
    await expect(chat.getByRole("link", { name: "src/api.py:19" })).toHaveAttribute(
      "href",
      /file=src%2Fapi.py&line=19/,
    );
    expect(await chat.locator("script").count()).toBe(0);

    // Ada pauses the running review: once the request in flight is answered, no request follows.
    await expect.poll(() => llm.requests.length, { timeout: 60_000 }).toBeGreaterThan(0);
    await page.getByRole("button", { name: "Pause" }).click();
    await expect(bea.getByRole("status").filter({ hasText: "Paused by Ada Lovelace" })).toBeVisible();
    const activity = page.getByLabel("Review activity");
    await expect(activity).toContainText("paused by Ada Lovelace");
    await page.waitForTimeout(2500);
    const whilePaused = llm.requests.length;
    await page.waitForTimeout(3000);
    expect(llm.requests).toHaveLength(whilePaused);

    // Bea's hint shows in the stream with her name; it waits for the next iteration.
    await bea.getByRole("textbox", { name: "Hint for the agent" }).fill(HINT);
    await bea.getByRole("button", { name: "Send hint" }).click();
    await expect(activity).toContainText(`hint from Bea Teammate: ${HINT}`);
    expect(llm.requests).toHaveLength(whilePaused);

    await bea.getByRole("button", { name: "Resume" }).click();
    await expect(page.locator('[data-status="completed"]')).toBeVisible({ timeout: 60_000 });
    // The first request after the pause carries the hint (and the agent then reports).
    expect(llm.requests[whilePaused]!.lastUserText).toContain(`adds a hint: ${HINT}`);
    await expect(page.getByRole("list", { name: "Findings" })).toContainText("SQL injection in find_items");
  } finally {
    await member.close();
    await llm.close();
  }
});
