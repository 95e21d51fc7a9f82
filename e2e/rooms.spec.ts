import { expect, test, type BrowserContext, type Page, type WebSocketRoute } from "@playwright/test";
import { startScriptedServer, type ScriptedServer } from "../server/llm/scripted/server.ts";
import { signUpOrSignIn } from "./support/owner.ts";
import {
  inviteTeammate,
  query,
  reportAnswer,
  startScriptedReview,
  trpc,
  workspaceOf,
} from "./support/scripted-review.ts";

// One review room with the scripted model: two members and a spectator (share link) watch the same
// streamed words and tool calls live; one member's socket is cut mid-review and comes back; a chat
// message from one appears for the others; a pause holds the model's requests, and meanwhile a third
// member joins late: every page's log — live, rebuilt after the cut, loaded late, the spectator's —
// is the room's persisted log, seq for seq (no gap, no double). A hint posted while paused reaches
// the next model request (the scripted server records every request).

const HINT = "also check the auth middleware";
const THINKING = "Still looking around the project tree before reading any single file.";

const activity = (p: Page) => p.getByLabel("Review activity");
const inRoom = (p: Page) => p.getByRole("list", { name: "In this room" });
const liveBadge = (p: Page) => p.getByText("live", { exact: true });
const lastSeqShown = async (p: Page) => Number(await activity(p).getAttribute("data-last-seq"));

/**
 * The page's Socket.IO connection, through Playwright: `cut()` drops it (both ends close, as when the
 * network goes) and refuses reconnecting until `restore()`. HTTP stays up, as on a flaky connection.
 */
async function cuttableSocket(p: Page) {
  let offline = false;
  const open: { page: WebSocketRoute; server: WebSocketRoute }[] = [];
  await p.routeWebSocket(/\/socket\.io\//, (ws) => {
    if (offline) return void ws.close();
    open.push({ page: ws, server: ws.connectToServer() });
  });
  return {
    async cut() {
      offline = true;
      for (const ws of open.splice(0)) {
        await ws.server.close().catch(() => undefined);
        await ws.page.close().catch(() => undefined);
      }
    },
    restore() {
      offline = false;
    },
  };
}

test("one review room: members and a spectator watch live, a cut socket and a late joiner rebuild the log exactly, chat, pause and a hint", async ({
  page,
  browser,
}) => {
  test.setTimeout(240_000);
  const llm: ScriptedServer = await startScriptedServer({
    script: [
      // First matching rule wins (by the last user message): the most specific first.
      { match: "review it critically", text: reportAnswer() },
      { match: HINT, text: reportAnswer("Checked the middleware too.\n") },
      // Until the hint comes, the agent thinks aloud (streamed word by word) and looks around.
      { text: THINKING, chunkDelayMs: 100, toolCalls: [{ name: "list_dir", input: { path: "." } }] },
    ],
  });
  const contexts: BrowserContext[] = [];
  try {
    await signUpOrSignIn(page);
    const workspaceId = await workspaceOf(page);
    const bea = await inviteTeammate(page, browser, workspaceId, "Bea Teammate");
    contexts.push(bea.context);
    const { reviewUid } = await startScriptedReview(page, llm, workspaceId);
    const share = await trpc<{ token: string }>(page.request, "shares.create", { reviewUid });
    const beaSocket = await cuttableSocket(bea.page);

    await page.goto(`/reviews/${reviewUid}`);
    await bea.page.goto(`/reviews/${reviewUid}`);
    const guest = await browser.newContext();
    contexts.push(guest);
    const spectator = await guest.newPage();
    await spectator.goto(`/share/${share.token}`);
    // Each sees the others in the room (the spectator as a guest).
    await expect(inRoom(page).getByRole("img", { name: /Bea Teammate/ })).toBeVisible({ timeout: 30_000 });
    await expect(inRoom(bea.page).getByRole("img", { name: /Ada Lovelace/ })).toBeVisible();
    await expect(inRoom(page).getByRole("img", { name: /Guest/ })).toBeVisible({ timeout: 15_000 });

    // All three watch the model's words as they stream and its tool calls, live.
    for (const p of [page, bea.page, spectator]) {
      await expect(activity(p)).toContainText("Still looking around", { timeout: 30_000 });
      await expect(activity(p)).toContainText("list_dir .");
      await expect(liveBadge(p)).toBeVisible();
    }
    // The spectator reads only (the server's refusal of a forced message: share.spec.ts).
    await expect(spectator.getByRole("textbox", { name: "Message" })).toBeDisabled();

    // Bea's socket is cut mid-review: she drops out of the room and her page is no longer live,
    // while the agent goes on (several more events are published while she is away).
    const atCut = await lastSeqShown(page);
    await beaSocket.cut();
    await expect(inRoom(page).getByRole("img", { name: /Bea Teammate/ })).toHaveCount(0, { timeout: 15_000 });
    await expect(liveBadge(bea.page)).toBeHidden();
    await expect.poll(() => lastSeqShown(page), { timeout: 30_000 }).toBeGreaterThan(atCut + 30);
    // The network comes back: her socket reconnects by itself, rejoins and is live again.
    beaSocket.restore();
    await expect(inRoom(page).getByRole("img", { name: /Bea Teammate/ })).toBeVisible({ timeout: 30_000 });
    await expect(liveBadge(bea.page)).toBeVisible();

    // A chat message from Bea appears for Ada and the spectator, its path:line a link to the code viewer.
    await bea.page.getByRole("textbox", { name: "Message" }).fill("Look at src/api.py:19 <script>alert(1)</script>");
    await bea.page.getByRole("button", { name: "Send", exact: true }).click();
    const chat = page.getByRole("list", { name: "Chat messages" });
    await expect(chat).toContainText("Look at src/api.py:19", { timeout: 15_000 });
    await expect(chat.getByRole("link", { name: "src/api.py:19" })).toHaveAttribute(
      "href",
      /file=src%2Fapi.py&line=19/,
    );
    expect(await chat.locator("script").count()).toBe(0);
    await expect(spectator.getByRole("list", { name: "Chat messages" })).toContainText("Look at src/api.py:19");

    // Ada pauses the running review: once the request in flight is answered, no request follows.
    expect(llm.requests.length).toBeGreaterThan(0);
    await page.getByRole("button", { name: "Pause" }).click();
    await expect(bea.page.getByRole("status").filter({ hasText: "Paused by Ada Lovelace" })).toBeVisible();
    await expect(activity(page)).toContainText("paused by Ada Lovelace");
    await page.waitForTimeout(2500);
    const whilePaused = llm.requests.length;

    // Meanwhile a third member joins late and loads the whole log.
    const cy = await inviteTeammate(page, browser, workspaceId, "Cy Latecomer");
    contexts.push(cy.context);
    await cy.page.goto(`/reviews/${reviewUid}`);
    await expect(inRoom(page).getByRole("img", { name: /Cy Latecomer/ })).toBeVisible({ timeout: 30_000 });
    expect(llm.requests).toHaveLength(whilePaused);

    // The room's persisted log, and what each page built its log from: the same events, seq for seq —
    // Ada's (live throughout), Bea's (rebuilt across the cut), Cy's (late) and the spectator's.
    const log = await query<{ seq: number }[]>(page.request, "reviews.events", { uid: reviewUid });
    expect(log.at(-1)!.seq).toBeGreaterThan(atCut + 30);
    const watchers = { Ada: page, Bea: bea.page, Cy: cy.page, spectator };
    for (const [who, p] of Object.entries(watchers)) {
      await expect(activity(p), who).toHaveAttribute("data-last-seq", String(log.at(-1)!.seq));
      await expect(activity(p), who).toHaveAttribute("data-events", String(log.length));
    }
    await expect(activity(cy.page)).toContainText("paused by Ada Lovelace");

    // Bea's hint shows in the stream with her name; it waits for the next iteration.
    await bea.page.getByRole("textbox", { name: "Hint for the agent" }).fill(HINT);
    await bea.page.getByRole("button", { name: "Send hint" }).click();
    await expect(activity(page)).toContainText(`hint from Bea Teammate: ${HINT}`);
    await expect(activity(cy.page)).toContainText(`hint from Bea Teammate: ${HINT}`);
    expect(llm.requests).toHaveLength(whilePaused);

    await bea.page.getByRole("button", { name: "Resume" }).click();
    await expect(page.locator('[data-status="completed"]')).toBeVisible({ timeout: 60_000 });
    // The first request after the pause carries the hint (and the agent then reports).
    expect(llm.requests[whilePaused]!.lastUserText).toContain(`adds a hint: ${HINT}`);
    await expect(page.getByRole("list", { name: "Findings" })).toContainText("SQL injection in find_items");

    // Bea votes the finding real: Ada's and Cy's rows show the team's verdict, live, and so does the
    // spectator's (who has no verdict buttons).
    const findingRow = (p: Page) =>
      p.getByRole("list", { name: "Findings" }).getByRole("button", { name: /SQL injection in find_items/ });
    await expect(bea.page.getByRole("list", { name: "Findings" })).toContainText("SQL injection in find_items");
    await findingRow(bea.page).click();
    await bea.page.getByRole("group", { name: "Your verdict" }).getByRole("button", { name: "real" }).click();
    for (const p of [page, cy.page, spectator])
      await expect(p.getByRole("list", { name: "Findings" })).toContainText("team: real (1)", { timeout: 15_000 });
    await expect(spectator.getByRole("group", { name: "Your verdict" })).toHaveCount(0);
  } finally {
    for (const c of contexts) await c.close();
    await llm.close();
  }
});
