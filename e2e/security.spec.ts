import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { startScriptedServer, type ScriptedServer } from "../server/llm/scripted/server.ts";
import { buildZip } from "../test/helpers/zip.ts";
import { signUpOrSignIn } from "./support/owner.ts";

// Hostile text rendered harmless in the browser. A project whose file names and code carry HTML, and
// a model (the scripted server) whose findings, summary, streamed text and suggested diff carry
// script tags, event handlers and javascript:/data: links — what uploaded code and LLM output can be.
// Every payload would set window.__xss if it ran; the pages must show it as text, run none of it,
// and offer no javascript: link to click.

/** Runs if any payload is ever interpreted: each one sets a different value. */
const p = (n: number) => `window.__xss=${n}`;
const HOSTILE_FILE = `src/<img src=x onerror=${p(1)}>.ts`;
const HOSTILE_LINE = `export const payload = "<img src=x onerror=${p(2)}>"; // </script><script>${p(3)}</script>`;
const TITLE = `<img src=x onerror="${p(4)}"><script>${p(5)}</script>`;
const MARKDOWN = [
  `[click me](javascript:${p(6)})`,
  `[data link](data:text/html,<script>${p(7)}</script>)`,
  `<javascript:${p(8)}>`,
  `![pic](javascript:${p(9)})`,
  `<svg onload="${p(10)}"></svg>`,
  `<iframe src="javascript:${p(11)}"></iframe>`,
  `<a href="javascript:${p(12)}">raw html link</a>`,
  "```html\n<script>" + p(13) + "</script>\n```",
  `[ref link][x]\n\n[x]: javascript:${p(14)}`,
].join("\n\n");

const REPORT = {
  summary: `Summary with payloads.\n\n${MARKDOWN}`,
  overall_score: 40,
  category_scores: { security: 30 },
  findings: [
    {
      title: TITLE,
      severity: "critical",
      confidence: 0.9,
      category: "security",
      file: HOSTILE_FILE,
      start_line: 1,
      end_line: 1,
      evidence: HOSTILE_LINE,
      explanation: MARKDOWN,
      suggested_fix: MARKDOWN,
      diff: `--- a/x.ts\n+++ b/x.ts\n@@ -1 +1 @@\n-<script>${p(15)}</script>\n+<img src=x onerror=${p(16)}>\n`,
    },
  ],
};
const ANSWER = `Reading <img src=x onerror=${p(17)}> <script>${p(18)}</script> [x](javascript:${p(19)})\nREPORT: ${JSON.stringify(REPORT)}`;

async function trpc<T>(request: APIRequestContext, path: string, input: unknown): Promise<T> {
  const res = await request.post(`/api/trpc/${path}`, { data: input });
  expect(res.status(), `${path}: ${await res.text()}`).toBe(200);
  return (await res.json()).result.data as T;
}

async function query<T>(request: APIRequestContext, path: string, input: unknown): Promise<T> {
  const res = await request.get(`/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`);
  expect(res.status(), `${path}: ${await res.text()}`).toBe(200);
  return (await res.json()).result.data as T;
}

/** Elements that could run script: event-handler attributes, javascript:/data: URLs, frames, injected scripts. */
function dangerousElements(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    for (const el of Array.from(document.querySelectorAll("*"))) {
      for (const attr of Array.from(el.attributes)) {
        const v = attr.value.trim().toLowerCase();
        if (/^on/i.test(attr.name)) found.push(`${el.tagName} ${attr.name}`);
        if (
          ["href", "src", "action", "formaction", "xlink:href"].includes(attr.name) &&
          /^(javascript|data|vbscript):/.test(v)
        )
          found.push(`${el.tagName} ${attr.name}=${v.slice(0, 40)}`);
      }
      if (el.tagName === "IFRAME" || el.tagName === "EMBED" || el.tagName === "OBJECT") found.push(el.tagName);
      if (el.tagName === "SCRIPT") {
        // Next's own data scripts carry the page's first data (issue 28: hostile text included) as
        // JSON strings it escapes for HTML (every `<` as \u003c): data handed to React, never run.
        // Any other script with a payload in it, or one of these with a raw `<`, was injected.
        const text = el.textContent ?? "";
        const nextData = /^\s*(\(self\.__next_f=self\.__next_f\|\|\[\]\)|self\.__next_f)\.push\(/.test(text);
        if (text.includes("__xss") && !(nextData && !text.includes("<"))) found.push("an injected script");
      }
    }
    return found;
  });
}

/**
 * No payload ran, no alert opened, and nothing on the page could run one (the DOM check matters most:
 * the CSP would stop an injected handler from running, but the injection itself is the bug).
 */
async function expectHarmless(page: Page, dialogs: string[]) {
  expect(await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss)).toBeUndefined();
  expect(dialogs).toEqual([]);
  expect(await dangerousElements(page)).toEqual([]);
}

test("hostile finding text, file names, code and model output are shown as text and never run", async ({ page }) => {
  test.setTimeout(240_000);
  const dialogs: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  const llm: ScriptedServer = await startScriptedServer({
    script: [
      { match: "Verify this finding", text: 'VERDICT: {"verdict": "confirmed", "evidence": "line 1"}' },
      { match: "review it critically", text: `REPORT: ${JSON.stringify(REPORT)}` },
      { text: ANSWER },
    ],
  });
  try {
    await signUpOrSignIn(page);
    const me = await page.request.get("/api/trpc/account.me");
    const workspaceId = (await me.json()).result.data.workspaces[0].id as string;
    const projectUid = crypto.randomUUID();
    const projectName = `hostile-${projectUid.slice(0, 6)}`;
    await trpc(page.request, "projects.create", { workspaceId, uid: projectUid, name: projectName });
    const zip = buildZip([
      { name: HOSTILE_FILE, data: `${HOSTILE_LINE}\n` },
      { name: "README.md", data: `# <script>${p(20)}</script>\n` },
    ]);
    const upload = await page.request.post(`/api/projects/${projectUid}/upload?kind=zip`, {
      data: zip,
      headers: { "content-type": "application/zip", "x-file-name": encodeURIComponent(`<b onmouseover=${p(21)}>.zip`) },
    });
    expect(upload.status(), await upload.text()).toBe(201);
    const { snapshotUid } = (await upload.json()) as { snapshotUid: string };
    await expect
      .poll(async () => (await query<{ status: string }>(page.request, "snapshots.get", { snapshotUid })).status, {
        timeout: 90_000,
      })
      .toBe("ready");

    const connectionUid = crypto.randomUUID();
    await trpc(page.request, "providers.save", {
      workspaceId,
      uid: connectionUid,
      name: `<img src=x onerror=${p(22)}> ${connectionUid.slice(0, 6)}`,
      provider: "anthropic",
      baseUrl: llm.url,
      model: "claude-sonnet-5-5",
      apiKey: "sk-test",
    });
    const review = await trpc<{ uid: string }>(page.request, "reviews.start", {
      projectUid,
      engine: "agent",
      connectionUid,
    });
    await expect
      .poll(async () => (await query<{ status: string }>(page.request, "reviews.get", { uid: review.uid })).status, {
        timeout: 120_000,
      })
      .toBe("completed");

    // The review page: summary, the finding (expanded: explanation, evidence, fix, diff), the activity log.
    await page.goto(`/reviews/${review.uid}`);
    await expect(page.locator('[data-status="completed"]')).toBeVisible();
    const finding = page.getByRole("list", { name: "Findings" }).getByRole("listitem").first();
    await expect(finding).toContainText(TITLE);
    await finding.getByRole("button", { expanded: false }).first().click();
    await expect(finding).toContainText(HOSTILE_LINE);
    await expect(finding.getByText("click me").first()).toBeVisible();
    await expectHarmless(page, dialogs);
    // The project page and the code viewer with the hostile file name and content.
    await finding.getByRole("link", { name: "Open in code" }).click();
    await expect(page.getByText(`onerror=${p(2)}`).first()).toBeVisible();
    await expectHarmless(page, dialogs);
    await page.goto(`/projects/${projectUid}`);
    await expect(page.getByRole("heading", { name: projectName })).toBeVisible();
    await expectHarmless(page, dialogs);
    await page.goto("/settings");
    await expect(page.getByText(`onerror=${p(22)}`).first()).toBeVisible();
    await expectHarmless(page, dialogs);

    // The check itself can fail: markup injected the way a bug would inject it is caught.
    await page.evaluate(() => {
      const probe = document.createElement("div");
      probe.innerHTML = '<img src="x" onerror="window.__xss=99"><a href="javascript:void 0">x</a>';
      document.body.append(probe);
    });
    expect(await dangerousElements(page)).toEqual(["IMG onerror", "A href=javascript:void 0"]);
  } finally {
    await llm.close();
  }
});
