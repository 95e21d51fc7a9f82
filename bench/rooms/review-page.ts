/**
 * The review page of a big review — 2,000 findings, 20,000 events in its room — in headless Chromium
 * (Debian's, through Playwright's launcher) against the real server with the built UI: how long from
 * navigation until the findings list is on screen and a click on a finding has opened it (the page
 * answers), and until the whole activity log has arrived over the room. Each figure is the median of
 * several fresh page loads after one warm-up load.
 *
 * The moments are taken in the page (reviewPageProbe): the frame in which the list, the opened finding and
 * the log's end first show, and the click's input time stamp — so the figures are the page's, not
 * those of the Playwright driver, which shares the machine and sees everything late when it is busy
 * (its own view is kept too, as `driverSaw`). The click comes from Playwright, whenever it gets to
 * it; a reader who clicks earlier may hit a busy main thread, so the longest task after the list
 * showed is reported next to it.
 */
import { chromium, type Browser } from "playwright-core";
import { buildIfNeeded } from "../../server/cli/build.ts";
import { repoRoot, startServer } from "../../server/main.ts";
import { createTestConfig } from "../../test/helpers/db.ts";
import { signUp } from "../../test/helpers/server.ts";
import { pageProbe } from "../measure/page-probe.ts";
import { loadAverages } from "./fanout.ts";
import { createBigReview } from "./review-fixture.ts";

export const PAGE_DEFAULTS = { findings: 2000, events: 20_000, loads: 5 };

const CHROMIUM_ARGS = ["--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--no-first-run"];

interface Load {
  /** Navigation → the first finding's row is on screen (the frame after it entered the DOM). */
  findingsListMs: number;
  /** The click's input event → the finding open on screen: what the reader waits for after clicking. */
  clickAnsweredMs: number;
  /** findingsListMs + clickAnsweredMs: a reader who clicks the first finding as soon as it shows. */
  interactiveMs: number;
  /**
   * The longest main-thread task that began after the list showed, until the activity log had
   * arrived: the longest a click in that time could wait before the page even sees it.
   */
  worstInputDelayAfterListMs: number;
  /** Navigation → the whole activity log shown (its last usage line). */
  activityLoadedMs: number;
  /** Main-thread tasks over 50 ms, summed, from navigation until the log had arrived. */
  longTasksMs: number;
  renderedFindingRows: number;
  /** The same moments as Playwright saw them (its driver runs on the same machine: late when it is busy). */
  driverSaw: { findingsListMs: number; clickAnsweredMs: number; activityLoadedMs: number };
  /** `uptime`'s load averages when the load began (the machine may be shared). */
  machineLoad: string;
}

/** In the page, from the first script on: when the list, the opened finding and the whole log show. */
function reviewPageProbe(lastRequests: number): string {
  return pageProbe(
    `    if (document.querySelector("[data-finding-toggle]")) onScreen("list");
    if (document.querySelector("[data-finding-toggle][aria-expanded=true]")) onScreen("answered");
    const usage = document.querySelector('[aria-label="Usage so far"]');
    if (usage && usage.textContent.includes(${JSON.stringify(`${lastRequests} requests`)})) onScreen("activity");`,
    // The input's own time stamp: when the browser received it, however busy the page was then.
    `  document.addEventListener("pointerdown", (e) => {
    if (probe.input === undefined && e.target instanceof Element && e.target.closest("[data-finding-toggle]"))
      probe.input = e.timeStamp;
  }, true);`,
  );
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
    await page.addInitScript({ content: reviewPageProbe(lastRequests) });
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
    // The probe's frames may still be pending: wait until every moment has its time.
    await page
      .waitForFunction(() => {
        const p = (window as unknown as { __probe: Record<string, number> }).__probe;
        return ["list", "answered", "activity"].every((k) => (p[k] ?? -1) >= 0) && p.input !== undefined;
      })
      .catch(async (err: unknown) => {
        throw new Error(
          `the page's probe is incomplete: ${JSON.stringify(await page.evaluate(() => (window as unknown as { __probe: unknown }).__probe))}`,
          { cause: err },
        );
      });
    const p = await page.evaluate(
      () => (window as unknown as { __probe: Record<string, number> & { tasks: [number, number][] } }).__probe,
    );
    const tasks = p.tasks.filter(([at]) => at <= p.activity!);
    const renderedFindingRows = await list.getByRole("listitem").count();
    const findingsListMs = Math.round(p.list!);
    const clickAnsweredMs = Math.round(p.answered! - p.input!);
    return {
      findingsListMs,
      clickAnsweredMs,
      interactiveMs: findingsListMs + clickAnsweredMs,
      worstInputDelayAfterListMs: Math.round(Math.max(0, ...tasks.filter(([at]) => at >= p.list!).map(([, d]) => d))),
      activityLoadedMs: Math.round(p.activity!),
      longTasksMs: Math.round(tasks.reduce((a, [, d]) => a + d, 0)),
      renderedFindingRows,
      driverSaw: {
        findingsListMs: listShown - started,
        clickAnsweredMs: answered - listShown,
        activityLoadedMs: activity - started,
      },
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
    const pick = (k: Exclude<keyof Load, "machineLoad" | "driverSaw">) => median(loads.map((l) => l[k]));
    return {
      findings: opts.findings,
      events: opts.events,
      loads: opts.loads,
      unit: "ms (median of the loads)",
      findingsListMs: pick("findingsListMs"),
      clickAnsweredMs: pick("clickAnsweredMs"),
      interactiveMs: pick("interactiveMs"),
      worstInputDelayAfterListMs: pick("worstInputDelayAfterListMs"),
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
