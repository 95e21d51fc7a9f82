/**
 * The pipeline pages in headless Chromium (Debian's, through Playwright's launcher) against the real
 * server with the built UI (issue 16, Performance):
 *  - a 60-step pipeline's page: navigation → its graph (every node) and the YAML editor on screen,
 *    then a click on a node → its details open; typing a character in the editor → the engine's
 *    diagnostic at its line (the page waits 150 ms after the last key before it asks, so the figure
 *    after that wait is reported beside the whole one);
 *  - a run with 1,000 steps in its trace (each with output, streamed text and tokens): navigation →
 *    the whole trace folded (its token total says 1,000 steps), frame times while the trace is
 *    scrolled end to end, and a click on a step's output → opened, with the DOM rows that exist.
 * Baselines measured in the same run: a 4-step pipeline and a 10-step run, on the same pages.
 * Each figure is the median of several fresh page loads after one warm-up load; the moments are the
 * page's own (a probe in the page: the frame in which something first shows, the input's time stamp).
 */
import { randomUUID } from "node:crypto";
import { chromium, type Browser, type Page } from "playwright-core";
import { buildIfNeeded } from "../server/cli/build.ts";
import { repoRoot, startServer, type RunningServer } from "../server/main.ts";
import { runRoom } from "../server/shared/rooms.ts";
import { createTestConfig } from "../test/helpers/db.ts";
import { signUp, type TestUser } from "../test/helpers/server.ts";
import { pageProbe } from "./measure/page-probe.ts";
import { loadAverages } from "./rooms/fanout.ts";

const LOADS = Number(process.env.BENCH_LOADS ?? 5);
const CHROMIUM_ARGS = ["--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--no-first-run"];

const PROBE = pageProbe(
  `    const want = window.__want || {};
    if (want.nodes && document.querySelectorAll(".react-flow__node").length >= want.nodes && document.querySelector(".cm-content"))
      onScreen("ready");
    if (document.querySelector('section[aria-label="Step details"]')) onScreen("answered");
    if (document.querySelector(".cm-lintRange-error")) onScreen("lint");
    const box = document.querySelector("[data-testid=trace-scroller]");
    if (want.steps && box && box.dataset.steps === String(want.steps) && document.querySelector('[aria-label="Tokens in all"]'))
      onScreen("ready");
    if (document.querySelector("[data-testid=trace-scroller] details[open]")) onScreen("opened");`,
  `  document.addEventListener("pointerdown", (e) => { if (probe.input === undefined) probe.input = e.timeStamp; }, true);
  document.addEventListener("keydown", (e) => { probe.key = e.timeStamp; }, true);`,
);

type Probe = Record<string, number> & { tasks: [number, number][] };
const probeOf = (page: Page) => page.evaluate(() => (window as unknown as { __probe: Probe }).__probe);
const waitProbe = (page: Page, keys: string[]) =>
  page.waitForFunction((ks) => {
    const p = (window as unknown as { __probe: Record<string, number> }).__probe;
    return ks.every((k) => (p[k] ?? -1) >= 0);
  }, keys);

async function signedInPage(browser: Browser, origin: string, user: TestUser, want: Record<string, number>) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const signedIn = await context.request.post(`${origin}/api/auth/sign-in/email`, {
    data: { email: user.email, password: user.password },
    headers: { origin },
  });
  if (!signedIn.ok()) throw new Error(`sign-in failed: ${signedIn.status()} ${await signedIn.text()}`);
  const page = await context.newPage();
  await page.addInitScript({ content: `window.__want = ${JSON.stringify(want)};\n${PROBE}` });
  return { context, page };
}

interface PipelineLoad {
  /** Navigation → every graph node and the editor on screen. */
  interactiveMs: number;
  /** A click on a node (its input time stamp) → its details on screen. */
  clickAnsweredMs: number;
  /** A key typed in the editor → the engine's diagnostic marked at its line (includes the 150 ms wait). */
  keyToDiagnosticMs: number;
  /** The validation request's start → the diagnostic on screen: the revalidation itself. */
  revalidateMs: number;
  /** The server's part of it (request start → response end). */
  validateRequestMs: number;
  longTasksMs: number;
  machineLoad: string;
}

async function pipelineLoad(browser: Browser, server: RunningServer, user: TestUser, uid: string, steps: number) {
  const { context, page } = await signedInPage(browser, server.url, user, { nodes: steps + 1 });
  try {
    const machineLoad = loadAverages();
    await page.goto(`${server.url}/pipelines/${uid}`, { waitUntil: "commit" });
    await waitProbe(page, ["ready"]);
    // The middle step: the graph is fitted around it (a long pipeline's ends are scrolled to).
    await page.locator(`.react-flow__node[data-id="s${Math.floor(steps / 2)}"]`).click();
    await waitProbe(page, ["answered"]);
    // The last step's line: End of document, one character more → an unknown tool.
    await page.locator(".cm-content").click();
    await page.keyboard.press("Control+End");
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("End");
    await page.keyboard.type("x");
    await waitProbe(page, ["lint"]);
    const p = await probeOf(page);
    const request = await page.evaluate(() => {
      const e = performance
        .getEntriesByType("resource")
        .filter((r) => r.name.includes("pipelines.validate"))
        .at(-1) as PerformanceResourceTiming | undefined;
      return e ? { start: e.startTime, end: e.responseEnd } : null;
    });
    if (!request) throw new Error("the page sent no validation request");
    return {
      interactiveMs: Math.round(p.ready!),
      clickAnsweredMs: Math.round(p.answered! - p.input!),
      keyToDiagnosticMs: Math.round(p.lint! - p.key!),
      revalidateMs: Math.round(p.lint! - request.start),
      validateRequestMs: Math.round(request.end - request.start),
      longTasksMs: Math.round(p.tasks.filter(([at]) => at <= p.ready!).reduce((a, [, d]) => a + d, 0)),
      machineLoad,
    } satisfies PipelineLoad;
  } finally {
    await context.close();
  }
}

interface TraceLoad {
  /** Navigation → the whole trace folded and its total on screen. */
  traceShownMs: number;
  /** Frames while the trace scrolls end to end in 60 steps, one a frame. */
  scrollFrameP50Ms: number;
  scrollFrameP95Ms: number;
  scrollFrameMaxMs: number;
  /** A click on a step's output summary → opened on screen. */
  clickAnsweredMs: number;
  /** Step rows in the DOM (of all the trace's steps). */
  renderedRows: number;
  machineLoad: string;
}

async function traceLoad(browser: Browser, server: RunningServer, user: TestUser, runUid: string, steps: number) {
  const { context, page } = await signedInPage(browser, server.url, user, { steps });
  try {
    const machineLoad = loadAverages();
    await page.goto(`${server.url}/pipelines/runs/${runUid}`, { waitUntil: "commit" });
    await waitProbe(page, ["ready"]);
    // Plain script text, as PROBE: scrolls the trace end to end in 60 frames, one step a frame.
    const frames = (await page.evaluate(`new Promise((resolve) => {
      const box = document.querySelector("[data-testid=trace-scroller]");
      const out = [];
      let last = performance.now();
      let i = 0;
      const tick = (t) => {
        out.push(t - last);
        last = t;
        if (++i > 60) return resolve(out.slice(1));
        box.scrollTop = ((box.scrollHeight - box.clientHeight) * i) / 60;
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    })`)) as number[];
    await page.locator("[data-testid=trace-scroller] summary").first().click();
    await waitProbe(page, ["opened"]);
    const p = await probeOf(page);
    const sorted = [...frames].sort((a, b) => a - b);
    const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]! * 10) / 10;
    return {
      traceShownMs: Math.round(p.ready!),
      scrollFrameP50Ms: at(0.5),
      scrollFrameP95Ms: at(0.95),
      scrollFrameMaxMs: Math.round(sorted.at(-1)! * 10) / 10,
      clickAnsweredMs: Math.round(p.opened! - p.input!),
      renderedRows: await page.locator("[data-testid=trace-scroller] li").count(),
      machineLoad,
    } satisfies TraceLoad;
  } finally {
    await context.close();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
function medians<T extends object>(loads: T[]) {
  const out: Record<string, number> = {};
  for (const k of Object.keys(loads[0]!))
    if (typeof (loads[0] as Record<string, unknown>)[k] === "number")
      out[k] = median(loads.map((l) => (l as Record<string, number>)[k]!));
  return out;
}

async function createPipeline(user: TestUser, name: string, steps: number): Promise<string> {
  const source = `servers:\n  sayhello: servers/sayhello\npipeline:\n${"  - sayhello.greet\n".repeat(steps)}`;
  const r = await user.client.ok<{ uid: string; valid: boolean }>("mutate", "pipelines.create", {
    workspaceId: user.workspaceId,
    name,
    source,
  });
  if (!r.valid) throw new Error(`the ${steps}-step pipeline is not valid`);
  return r.uid;
}

/** A finished run whose room holds `steps` steps: each starts, streams a little text, ends with output and tokens. */
async function createRun(server: RunningServer, user: TestUser, steps: number): Promise<string> {
  const { db, events } = server.services;
  const uid = randomUUID();
  await db.pipelineRun.create({
    data: {
      uid,
      workspaceId: user.workspaceId,
      createdById: user.userId,
      pipelineName: `bench_${steps}`,
      pipelinePath: "bench.yaml",
      pipelineHash: "0".repeat(64),
      params: "{}",
      status: "completed",
      finishedAt: new Date(),
      dataset: JSON.stringify({ kind: "sample" }),
    },
  });
  const room = runRoom(uid);
  for (let i = 0; i < steps; i++) {
    const name = i % 3 === 0 ? "retriever.bm25_search" : i % 3 === 1 ? "prompt.qa_boxed" : "generation.generate";
    await events.publish(room, { type: "step_start", payload: { name, depth: i % 3 === 0 ? 0 : 1 } });
    if (name === "generation.generate")
      await events.publish(room, {
        type: "token",
        payload: { text: `Item ${i}: the answer is \\boxed{${i}}. `, step: name, is_final: false },
      });
    await events.publish(room, {
      type: "step_end",
      payload: {
        name,
        output: `Item ${i} of 1000\n${"a line of the output summary\n".repeat(4)}`,
        ...(name === "generation.generate" ? { tokens: { input: 420, output: 36 } } : {}),
      },
    });
  }
  await events.flush();
  return uid;
}

export default async function pipelineUi() {
  buildIfNeeded(repoRoot, (m) => console.error(m));
  const testDb = await createTestConfig(process.env.BENCH_PORT ? { PORT: process.env.BENCH_PORT } : {});
  const server = await startServer({ config: testDb.config, ui: true });
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
  try {
    const owner = await signUp(server.url, { name: "Owner" });
    const [big, small] = [await createPipeline(owner, "sixty", 60), await createPipeline(owner, "four", 4)];
    const [longRun, shortRun] = [await createRun(server, owner, 1000), await createRun(server, owner, 10)];

    const repeat = async <T>(fn: () => Promise<T>) => {
      await fn(); // warm-up: compiled routes, caches
      const out: T[] = [];
      for (let i = 0; i < LOADS; i++) out.push(await fn());
      return out;
    };
    const pipeline60 = await repeat(() => pipelineLoad(browser, server, owner, big, 60));
    const pipeline4 = await repeat(() => pipelineLoad(browser, server, owner, small, 4));
    const trace1000 = await repeat(() => traceLoad(browser, server, owner, longRun, 1000));
    const trace10 = await repeat(() => traceLoad(browser, server, owner, shortRun, 10));
    return {
      loads: LOADS,
      unit: "ms (median of the loads)",
      pipeline60Steps: medians(pipeline60),
      baselinePipeline4Steps: medians(pipeline4),
      trace1000Steps: medians(trace1000),
      baselineTrace10Steps: medians(trace10),
      targets: { interactiveMs: 1000, revalidateMs: 150, scrollFrameP95Ms: 50 },
      each: { pipeline60, pipeline4, trace1000, trace10 },
    };
  } finally {
    await browser.close();
    await server.close();
    await testDb.cleanup();
  }
}
