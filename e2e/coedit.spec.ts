import { expect, test, type APIRequestContext, type Browser, type Page } from "@playwright/test";
import { signUpOrSignIn } from "./support/owner.ts";

// Co-editing (issue 29): two people with the same pipeline open type into the same line and see each
// other's text and cursor; a graph edit by one shows in the other's YAML; the step a teammate selected
// shows their name on the graph; a viewer cannot type.

async function trpc<T>(request: APIRequestContext, path: string, input: unknown): Promise<T> {
  const res = await request.post(`/api/trpc/${path}`, { data: input });
  expect(res.status(), `${path}: ${await res.text()}`).toBe(200);
  return (await res.json()).result.data as T;
}

const SOURCE = `servers:
  benchmark: servers/benchmark
  retriever: servers/retriever
pipeline:
  - benchmark.get_data
  - retriever.retriever_init
  - retriever.bm25_index
  - retriever.bm25_search
`;

async function teammate(browser: Browser, owner: Page, workspaceId: string, name: string, role: string) {
  const invite = await trpc<{ token: string }>(owner.request, "account.createInvite", { workspaceId, role });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await trpc(page.request, "account.signUp", {
    name,
    email: `${name.split(" ")[0]!.toLowerCase()}-coedit-${Date.now()}@example.com`,
    password: "correct-horse-battery",
    inviteToken: invite.token,
  });
  return { context, page };
}

const yamlOf = (p: Page) => p.getByRole("textbox", { name: "Pipeline YAML" });

test("two editors type into the same line and see each other; a graph edit shows in the other's YAML; a viewer cannot type", async ({
  page,
  browser,
}) => {
  test.setTimeout(240_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  await signUpOrSignIn(page);
  const me = await (await page.request.get("/api/trpc/account.me")).json();
  const previousWorkspaceId = me.result.data.currentWorkspaceId as string;
  // A workspace of this spec's own: its pipeline is not in the team's list the other specs expect.
  const name = `Coedit ${Date.now()}`;
  const workspaceId = (await trpc<{ id: string }>(page.request, "workspaces.create", { name })).id;
  await trpc(page.request, "workspaces.switch", { workspaceId });
  const bea = await teammate(browser, page, workspaceId, "Bea Coeditor", "member");
  const vic = await teammate(browser, page, workspaceId, "Vic Follower", "viewer");
  try {
    const pipeline = await trpc<{ uid: string }>(page.request, "pipelines.create", {
      workspaceId,
      name: `shared_${Date.now().toString(36)}`,
      source: SOURCE,
    });
    const url = `/pipelines/${pipeline.uid}`;
    await page.goto(url);
    await bea.page.goto(url);
    await vic.page.goto(url);
    for (const p of [page, bea.page]) await expect(p.getByRole("list", { name: "Editing now" })).toBeVisible();

    // Both type on the line of retriever.bm25_search: each sees the other's text.
    const line = (p: Page) => yamlOf(p).locator(".cm-line").filter({ hasText: "retriever.bm25_search" });
    await line(page).click();
    await page.keyboard.press("End");
    await page.keyboard.type(" # ada", { delay: 30 });
    await line(bea.page).click();
    await bea.page.keyboard.press("End");
    await bea.page.keyboard.type(" # bea", { delay: 30 });
    for (const p of [page, bea.page, vic.page]) {
      await expect(yamlOf(p)).toContainText("# ada");
      await expect(yamlOf(p)).toContainText("# bea");
    }
    // Each sees the other's cursor, with their name.
    await expect(page.locator(".cm-ySelectionInfo", { hasText: "Bea Coeditor" })).toBeAttached();
    await expect(bea.page.locator(".cm-ySelectionInfo", { hasText: "Ada Lovelace" })).toBeAttached();
    await expect(page.getByRole("list", { name: "Editing now" })).toContainText("Bea Coeditor");

    // Ada deletes a step on the graph: Bea's YAML loses it too.
    const graph = page.getByTestId("pipeline-graph");
    await expect(graph).toHaveAttribute("data-layout", "ready");
    await graph.getByText("retriever.bm25_index", { exact: true }).click();
    await page.getByRole("button", { name: "Delete step" }).click();
    await expect(yamlOf(page)).not.toContainText("retriever.bm25_index");
    await expect(yamlOf(bea.page)).not.toContainText("retriever.bm25_index");
    await expect(yamlOf(bea.page)).toContainText("# bea");

    // Bea selects a step on her graph: Ada's graph shows Bea's name on that step.
    const beasGraph = bea.page.getByTestId("pipeline-graph");
    await expect(beasGraph).toHaveAttribute("data-layout", "ready");
    await beasGraph.getByText("retriever.bm25_search", { exact: true }).click();
    const step = graph.locator(".react-flow__node", { hasText: "retriever.bm25_search" });
    await expect(step.getByTestId("graph-watchers")).toContainText("Bea Coeditor");

    // The viewer follows, but cannot type.
    await expect(yamlOf(vic.page)).toHaveAttribute("contenteditable", "false");
    const before = await yamlOf(page).innerText();
    await yamlOf(vic.page).click({ force: true });
    await vic.page.keyboard.type("nope");
    await page.waitForTimeout(500);
    expect(await yamlOf(page).innerText()).toBe(before);
  } finally {
    await bea.context.close();
    await vic.context.close();
    await trpc(page.request, "workspaces.switch", { workspaceId: previousWorkspaceId });
  }
});
