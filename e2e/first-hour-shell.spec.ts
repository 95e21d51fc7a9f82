import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { hydrated } from "./support/hydration.ts";
import { signUpOrSignIn } from "./support/owner.ts";
import { inOwnWorkspace } from "./support/own-workspace.ts";
import { trpc } from "./support/scripted-review.ts";

// What these tests create (a project, a knowledge base) stays out of other specs' empty states.
inOwnWorkspace("Shell");

// Issue 28, point 3: pages show content at once. The server reads the session and renders the
// signed-in shell — the navigation and the page — into the HTML, so the first paint is the page, not
// a blank white page (or a skeleton) while the scripts load and `account.me` is asked for. Without
// any script at all the shell and the dashboard are there; signed out, the server renders the frame
// (navigation and a skeleton) and the browser's script sends the visitor to sign in, as before.
test("the first paint is the signed-in shell with the page, before any script runs", async ({ page, browser }) => {
  await signUpOrSignIn(page);
  const state = await page.context().storageState();
  const noScript = await browser.newContext({ javaScriptEnabled: false, storageState: state });
  try {
    const p = await noScript.newPage();
    for (const path of ["/", "/projects", "/reviews"]) {
      await p.goto(path);
      const nav = p.getByRole("navigation", { name: "Main" });
      await expect(nav.getByRole("link", { name: "Projects" })).toBeVisible();
      await expect(nav.getByRole("link", { name: "Pipelines" })).toBeVisible();
      await expect(p.locator('[data-shell="frame"]')).toHaveCount(0);
    }
    // The dashboard's own content, read on the server with the session.
    await p.goto("/");
    await expect(p.getByRole("heading", { name: "Welcome, Ada", level: 1 })).toBeVisible();
    // Its figures too: the workspace's review prompts (the built-ins) are counted, not "–".
    await expect(p.getByRole("link", { name: /Review prompts/ })).toContainText(/\d+\s*Review prompts/);
    // The page's own link is marked as the current one already.
    await p.goto("/reviews");
    await expect(p.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Reviews" })).toHaveAttribute(
      "aria-current",
      "page",
    );
  } finally {
    await noScript.close();
  }
  // Signed out and without script: the frame, not the app (nothing of the user's is on the page).
  const signedOut = await browser.newContext({ javaScriptEnabled: false });
  try {
    const p = await signedOut.newPage();
    await p.goto("/");
    await expect(p.locator('[data-shell="frame"]')).toHaveCount(1);
    await expect(p.getByLabel("Loading").first()).toBeVisible();
    await expect(p.getByRole("heading", { name: /Welcome/ })).toHaveCount(0);
  } finally {
    await signedOut.close();
  }
  // With scripts, a signed-out visitor is sent to sign in, as before.
  const visitor = await browser.newContext();
  try {
    const p = await visitor.newPage();
    await p.goto("/");
    await expect(p).toHaveURL(/\/sign-in/);
  } finally {
    await visitor.close();
  }
  // With scripts, the shell hydrates into the page.
  await page.goto("/projects");
  await expect(page.getByRole("heading", { name: "Projects", level: 1 })).toBeVisible();
  await expect(page.locator('[data-shell="frame"]')).toHaveCount(0);
});

// The lists and the other pages read their first data on the server too: without any script, each
// shows its content (or its empty state), not a skeleton.
test("the lists, a knowledge base, a prompt, the inbox and settings show their data before any script runs", async ({
  page,
  browser,
}) => {
  await signUpOrSignIn(page);
  const me = (await (await page.request.get("/api/trpc/account.me")).json()).result.data as {
    currentWorkspaceId: string | null;
    workspaces: { id: string }[];
  };
  const workspaceId = me.currentWorkspaceId ?? me.workspaces[0]!.id;
  const stamp = Date.now().toString(36);
  const project = `Shell project ${stamp}`;
  await trpc(page.request, "projects.create", { workspaceId, uid: randomUUID(), name: project });
  const base = await trpc<{ uid: string }>(page.request, "knowledge.create", {
    workspaceId,
    name: `Shell notes ${stamp}`,
  });
  const state = await page.context().storageState();
  const noScript = await browser.newContext({ javaScriptEnabled: false, storageState: state });
  // What the script-less visit found, visited again with script below.
  const found = { galleryTitle: "", galleryHref: "", promptName: "", promptHref: "" };
  try {
    const p = await noScript.newPage();
    const main = p.getByRole("main");
    await p.goto("/projects");
    await expect(main.getByRole("list", { name: "Projects" }).getByRole("link", { name: project })).toBeVisible();
    await expect(main.getByLabel("Loading")).toHaveCount(0);

    await p.goto("/reviews");
    await expect(main.getByRole("list", { name: "Reviews" }).or(main.getByText("No reviews yet"))).toBeVisible();
    await expect(main.getByRole("combobox", { name: "Filter by project" })).toContainText(project);

    await p.goto("/pipelines");
    await expect(main.getByRole("list", { name: "Gallery pipelines" }).getByRole("listitem").first()).toBeVisible();
    // A gallery pipeline's page: its title, read on the server.
    const galleryLink = main
      .getByRole("list", { name: "Gallery pipelines" })
      .getByRole("heading")
      .first()
      .getByRole("link");
    found.galleryTitle = (await galleryLink.textContent())!.trim();
    found.galleryHref = (await galleryLink.getAttribute("href"))!;
    await p.goto(found.galleryHref);
    await expect(main.getByRole("heading", { level: 1 })).toContainText(found.galleryTitle);

    // The pipeline chat: the sessions (none yet) and the pipelines one can chat with.
    await p.goto("/pipelines/chat");
    const sessions = main.getByRole("navigation", { name: "Chat sessions" });
    await expect(
      sessions.getByRole("list", { name: "Sessions" }).or(sessions.getByText("No sessions yet")),
    ).toBeVisible();
    await expect(
      main
        .getByRole("list", { name: "Pipelines that can chat" })
        .or(main.getByText("No pipeline here can answer questions.")),
    ).toBeVisible();

    await p.goto("/knowledge");
    await expect(
      main.getByRole("list", { name: "Knowledge bases" }).getByRole("link", { name: `Shell notes ${stamp}` }),
    ).toBeVisible();
    await p.goto(`/knowledge/${base.uid}`);
    await expect(main.getByRole("heading", { name: `Shell notes ${stamp}`, level: 1 })).toBeVisible();
    await expect(main.getByText("No documents yet")).toBeVisible();

    await p.goto("/prompts");
    const firstPrompt = main.getByRole("list", { name: "Prompts" }).getByRole("link").first();
    await expect(firstPrompt).toBeVisible();
    found.promptName = (await firstPrompt.textContent())!.trim();
    found.promptHref = (await firstPrompt.getAttribute("href"))!;
    await p.goto(found.promptHref);
    await expect(main.getByRole("heading", { name: found.promptName, level: 1 })).toBeVisible();

    await p.goto("/inbox");
    await expect(
      main.getByRole("list", { name: "Notifications" }).or(main.getByText("Nothing here yet")),
    ).toBeVisible();

    await p.goto("/settings");
    await expect(main.getByRole("heading", { name: "Settings", level: 1 })).toBeVisible();
    await expect(main.getByRole("heading", { name: "Model providers" })).toBeVisible();
    await expect(main.getByRole("heading", { name: "Members" })).toBeVisible();
  } finally {
    await noScript.close();
  }

  // With scripts, the same pages hydrate without a mismatch (React reports one on the console).
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(e.message));
  for (const [path, heading] of [
    ["/projects", "Projects"],
    ["/reviews", "Reviews"],
    ["/pipelines", "Pipelines"],
    ["/knowledge", "Knowledge"],
    [`/knowledge/${base.uid}`, `Shell notes ${stamp}`],
    [found.galleryHref, found.galleryTitle],
    ["/prompts", "Prompts"],
    [found.promptHref, found.promptName],
    ["/inbox", "Inbox"],
    ["/pipelines/chat", "Chat with a pipeline"],
    ["/settings", "Settings"],
  ] as [string, string][]) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1 })).toContainText(heading);
    await hydrated(page);
    await page.waitForTimeout(300);
  }
  expect(errors.filter((e) => /hydrat|did not match|Minified React error #418|#423|#425/i.test(e))).toEqual([]);
});
