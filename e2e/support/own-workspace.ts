import { test } from "@playwright/test";
import { signUpOrSignIn } from "./owner.ts";
import { trpc } from "./scripted-review.ts";

/**
 * Runs a spec in a workspace of its own: created and made current before its first test, the
 * owner's previous workspace made current again after its last. What the spec creates (forks,
 * knowledge bases, projects, reviews) then never shows up in another spec's empty states.
 */
export function inOwnWorkspace(label: string): void {
  let previous = "";
  test.beforeAll(async ({ browser }) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signUpOrSignIn(page);
    const me = (await (await page.request.get("/api/trpc/account.me")).json()) as {
      result: { data: { currentWorkspaceId: string } };
    };
    previous = me.result.data.currentWorkspaceId;
    const { id } = await trpc<{ id: string }>(page.request, "workspaces.create", { name: `${label} ${Date.now()}` });
    await trpc(page.request, "workspaces.switch", { workspaceId: id });
    await context.close();
  });
  test.afterAll(async ({ browser }) => {
    if (!previous) return;
    const context = await browser.newContext();
    const page = await context.newPage();
    await signUpOrSignIn(page);
    await trpc(page.request, "workspaces.switch", { workspaceId: previous });
    await context.close();
  });
}
