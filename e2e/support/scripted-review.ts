import { expect, type APIRequestContext, type Browser, type BrowserContext, type Page } from "@playwright/test";
import type { ScriptedServer } from "../../server/llm/scripted/server.ts";

/**
 * The setup the review-room specs share: tRPC calls as the signed-in page, teammates invited into the
 * owner's workspace (each in a browser context of their own), and an agent review of the demo project
 * answered by the scripted model (server/llm/scripted) through a workspace connection.
 */

/** What the scripted model reports on the demo project: its one real bug. */
export const DEMO_REPORT = {
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
      suggested_fix: "Use a parameterised query.",
    },
  ],
};

/** The agent's final answer carrying DEMO_REPORT, after `before` (e.g. "Found it.\n"). */
export const reportAnswer = (before = "") => `${before}REPORT: ${JSON.stringify(DEMO_REPORT)}`;

/** A tRPC mutation as whoever `request` is signed in as; fails the test unless it answers 200. */
export async function trpc<T>(request: APIRequestContext, path: string, input: unknown): Promise<T> {
  const res = await request.post(`/api/trpc/${path}`, { data: input });
  expect(res.status(), `${path}: ${await res.text()}`).toBe(200);
  return (await res.json()).result.data as T;
}

/** A tRPC query, likewise. */
export async function query<T>(request: APIRequestContext, path: string, input: unknown): Promise<T> {
  const res = await request.get(`/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`);
  expect(res.status(), `${path}: ${await res.text()}`).toBe(200);
  return (await res.json()).result.data as T;
}

/** The signed-in user's first workspace (the owner's, for the owner of the e2e server). */
/** The signed-in user's current workspace (a spec may have switched to one of its own). */
export async function workspaceOf(page: Page): Promise<string> {
  const me = await page.request.get("/api/trpc/account.me");
  const data = (await me.json()).result.data as { currentWorkspaceId?: string | null; workspaces: { id: string }[] };
  return data.currentWorkspaceId ?? data.workspaces[0]!.id;
}

export interface Teammate {
  context: BrowserContext;
  page: Page;
}

/** A new account invited into the workspace with `role`, signed in on a page of its own context. */
export async function inviteTeammate(
  owner: Page,
  browser: Browser,
  workspaceId: string,
  name: string,
  role: "member" | "viewer" = "member",
): Promise<Teammate> {
  const invite = await trpc<{ token: string }>(owner.request, "account.createInvite", { workspaceId, role });
  const context = await browser.newContext();
  const page = await context.newPage();
  const slug = name.toLowerCase().replace(/[^a-z]+/g, "-");
  await trpc(page.request, "account.signUp", {
    name,
    email: `${slug}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`,
    password: "correct-horse-battery",
    inviteToken: invite.token,
  });
  return { context, page };
}

/** Starts an agent review of a fresh demo project, its model the scripted server `llm`. */
export async function startScriptedReview(
  page: Page,
  llm: ScriptedServer,
  workspaceId: string,
): Promise<{ reviewUid: string; projectUid: string; connectionUid: string }> {
  const connectionUid = crypto.randomUUID();
  await trpc(page.request, "providers.save", {
    workspaceId,
    uid: connectionUid,
    name: `scripted ${connectionUid.slice(0, 6)}`,
    provider: "anthropic",
    baseUrl: llm.url,
    model: "claude-sonnet-5-5",
    apiKey: "sk-test",
  });
  const demo = await trpc<{ projectUid: string }>(page.request, "projects.startDemo", { workspaceId });
  const review = await trpc<{ uid: string }>(page.request, "reviews.start", {
    projectUid: demo.projectUid,
    engine: "agent",
    connectionUid,
    settings: { verify: false },
  });
  return { reviewUid: review.uid, projectUid: demo.projectUid, connectionUid };
}
