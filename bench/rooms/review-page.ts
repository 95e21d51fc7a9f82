/**
 * The review page of a big review — 2,000 findings, 20,000 events in its room — in headless Chromium
 * (Debian's, through Playwright's launcher) against the real server with the built UI: how long from
 * navigation until the findings list is on screen and a click on a finding has opened it (the page
 * answers), and until the whole activity log has arrived over the room. Each figure is the median of
 * several fresh page loads after one warm-up load.
 */
import { chromium, type Browser } from "playwright-core";
import { buildIfNeeded } from "../../server/cli/build.ts";
import { repoRoot, startServer } from "../../server/main.ts";
import { createTestConfig } from "../../test/helpers/db.ts";
import { signUp } from "../../test/helpers/server.ts";
import { loadAverages } from "./fanout.ts";
import { createBigReview } from "./review-fixture.ts";

export const PAGE_DEFAULTS = { findings: 2000, events: 20_000, loads: 5 };

const CHROMIUM_ARGS = ["--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--no-first-run"];

interface Load {
  findingsListMs: number;
  clickAnsweredMs: number;
  /** Navigation → list rendered → first finding clicked and open. */
  interactiveMs: number;
  activityLoadedMs: number;
  longTasksMs: number;
  renderedFindingRows: number;
  /** `uptime`'s load averages when the load began (the machine may be shared). */
  machineLoad: string;
}

async function loadOnce(
  browser: Browser,
  url: string,
  user: { email: string; password: string },
  lastRequests: number,
): Promise<Load> {
  const origin = new URL(url).origin;
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  try {
    // Signed in through better-auth, as the sign-in page does: the context keeps the session cookie.
    const signedIn = await context.request.post(`${origin}/api/auth/sign-in/email`, {
      data: { email: user.email, password: user.password },
      headers: { origin },
    });
    if (!signedIn.ok()) throw new Error(`sign-in failed: ${signedIn.status()} ${await signedIn.text()}`);
    const page = await context.newPage();
    // Main-thread tasks over 50 ms (the page's jank) from the first script on.
    await page.addInitScript(() => {
      const w = window as unknown as { __longTasks: number };
      w.__longTasks = 0;
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) w.__longTasks += e.duration;
      }).observe({ type: "longtask", buffered: true });
    });
    const machineLoad = loadAverages();
    const started = Date.now();
    await page.goto(url, { waitUntil: "commit" });
    const list = page.getByRole("list", { name: "Findings" });
    const first = list.getByRole("button", { expanded: false }).first();
    await first.waitFor({ state: "visible", timeout: 60_000 }).catch(async (err: unknown) => {
      // Say what the page showed instead (an error notice, a sign-in page …).
      const shown = (
        await page
          .locator("body")
          .innerText()
          .catch(() => "")
      ).slice(0, 800);
      throw new Error(`the findings list did not appear at ${page.url()}; the page showed:\n${shown}`, { cause: err });
    });
    const listShown = Date.now();
    await first.click();
    await list.getByRole("button", { expanded: true }).first().waitFor({ timeout: 60_000 });
    const answered = Date.now();
    await page
      .getByLabel("Usage so far")
      .filter({ hasText: `${lastRequests} requests` })
      .waitFor({ timeout: 120_000 });
    const activity = Date.now();
    const longTasksMs = await page.evaluate(() => (window as unknown as { __longTasks: number }).__longTasks);
    const renderedFindingRows = await list.getByRole("listitem").count();
    return {
      findingsListMs: listShown - started,
      clickAnsweredMs: answered - listShown,
      interactiveMs: answered - started,
      activityLoadedMs: activity - started,
      longTasksMs: Math.round(longTasksMs),
      renderedFindingRows,
      machineLoad,
    };
  } finally {
    await context.close();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function measureReviewPage(opts = PAGE_DEFAULTS) {
  buildIfNeeded(repoRoot, (m) => console.error(m));
  // BENCH_PORT: a fixed port for the server (default: any free one).
  const testDb = await createTestConfig(process.env.BENCH_PORT ? { PORT: process.env.BENCH_PORT } : {});
  const server = await startServer({ config: testDb.config, ui: true });
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
  try {
    const owner = await signUp(server.url, { name: "Owner" });
    const review = await createBigReview(server.services.db, owner.workspaceId, opts);
    const url = `${server.url}/reviews/${review.uid}`;
    const lastRequests = Math.floor((opts.events - 1) / 10) + 1;
    await loadOnce(browser, url, owner, lastRequests); // warm-up: compiled routes, caches
    const loads: Load[] = [];
    for (let i = 0; i < opts.loads; i++) loads.push(await loadOnce(browser, url, owner, lastRequests));
    const pick = (k: Exclude<keyof Load, "machineLoad">) => median(loads.map((l) => l[k]));
    return {
      findings: opts.findings,
      events: opts.events,
      loads: opts.loads,
      unit: "ms (median of the loads)",
      findingsListMs: pick("findingsListMs"),
      clickAnsweredMs: pick("clickAnsweredMs"),
      interactiveMs: pick("interactiveMs"),
      activityLoadedMs: pick("activityLoadedMs"),
      longTasksMs: pick("longTasksMs"),
      renderedFindingRows: pick("renderedFindingRows"),
      target: { interactiveMs: 1500 },
      each: loads,
    };
  } finally {
    await browser.close();
    await server.close();
    await testDb.cleanup();
  }
}
