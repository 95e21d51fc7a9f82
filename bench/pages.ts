/**
 * The first hour's pages in headless Chromium (Debian's, through Playwright's launcher) against the
 * real server with the production UI build, one process (issue 28, Performance):
 *  - a workspace with a 5,000-file project, a finished review with 300 findings and a pipeline;
 *  - for the dashboard, the project page, the review page and the pipeline page: first contentful
 *    paint, the page's own content on screen (its heading and main data), and interactive (that
 *    content hydrated: React's handlers on it), each the median of LOADS cold loads (a fresh browser
 *    context each, the HTTP cache disabled), with the JavaScript the first screen fetched (KB over
 *    the wire, and decoded);
 *  - the baseline: a static HTML page served by the same server in the same run (public/, no script);
 *  - imports: the first import of a 92-file zip into a fresh project of this process, then the same
 *    zip again (re-import), wall time from upload to the snapshot ready;
 *  - Stop settle time: a member's Stop of an agent review whose stand-in model takes 8 s per request,
 *    until the review is completed with its partial report (measure/stop-settle.ts; target ≤ 1 s).
 * Target: content ≤ 1 s and interactive ≤ 1.5 s at a machine load < 2 (the load is recorded).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser } from "playwright-core";
import { buildIfNeeded } from "../server/cli/build.ts";
import { repoRoot, startServer, type RunningServer } from "../server/main.ts";
import { createTestConfig } from "../test/helpers/db.ts";
import { signUp, type TestUser } from "../test/helpers/server.ts";
import { buildZip } from "../test/helpers/zip.ts";
import { pageProbe } from "./measure/page-probe.ts";
import { stopSettle } from "./measure/stop-settle.ts";
import { loadAverages } from "./rooms/fanout.ts";

const LOADS = Number(process.env.BENCH_LOADS ?? 10);
const FILES = Number(process.env.BENCH_FILES ?? 5000);
const FINDINGS = 300;
const CHROMIUM_ARGS = ["--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--no-first-run"];

/** Each page's own content: what a person came for, and the element whose handlers make it usable. */
const PROBE = pageProbe(
  `    const want = window.__want;
    const el = want && document.querySelector(want.content);
    if (el) {
      onScreen("content");
      // A page without script (the static baseline) is interactive once it shows.
      if (want.static || Object.keys(el).some((k) => k.startsWith("__reactFiber") || k.startsWith("__reactProps"))) onScreen("interactive");
    }
    const paint = performance.getEntriesByName("first-contentful-paint")[0];
    if (paint && probe.fcp === undefined) probe.fcp = paint.startTime;`,
  `  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.name === "first-contentful-paint") probe.fcp = e.startTime;
  }).observe({ type: "paint", buffered: true });`,
);

type Probe = Record<string, number>;

interface PageLoad {
  fcpMs: number;
  contentMs: number;
  interactiveMs: number;
  /** Scripts fetched until interactive: bytes over the wire and decoded, in KB. */
  jsTransferKb: number;
  jsDecodedKb: number;
  scripts: number;
  machineLoad: string;
}

async function load(browser: Browser, url: string, user: TestUser | null, content: string): Promise<PageLoad> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  try {
    if (user) {
      const origin = new URL(url).origin;
      const r = await context.request.post(`${origin}/api/auth/sign-in/email`, {
        data: { email: user.email, password: user.password },
        headers: { origin },
      });
      if (!r.ok()) throw new Error(`sign-in failed: ${r.status()}`);
    }
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    await page.addInitScript({
      content: `window.__want = ${JSON.stringify({ content, static: user === null })};\n${PROBE}`,
    });
    const machineLoad = loadAverages();
    await page.goto(url, { waitUntil: "commit" });
    await page.waitForFunction(
      () => {
        const p = (window as unknown as { __probe: Probe }).__probe;
        return (p.interactive ?? -1) >= 0 && p.fcp !== undefined;
      },
      undefined,
      { timeout: 60_000 },
    );
    const p = await page.evaluate(() => (window as unknown as { __probe: Probe }).__probe);
    const scripts = await page.evaluate(
      (until) =>
        (performance.getEntriesByType("resource") as PerformanceResourceTiming[])
          .filter((e) => e.initiatorType === "script" || e.name.endsWith(".js"))
          .filter((e) => e.startTime <= until)
          .map((e) => ({ transfer: e.transferSize, decoded: e.decodedBodySize })),
      p.interactive!,
    );
    return {
      fcpMs: Math.round(p.fcp!),
      contentMs: Math.round(p.content!),
      interactiveMs: Math.round(p.interactive!),
      jsTransferKb: Math.round(scripts.reduce((a, s) => a + s.transfer, 0) / 1024),
      jsDecodedKb: Math.round(scripts.reduce((a, s) => a + s.decoded, 0) / 1024),
      scripts: scripts.length,
      machineLoad,
    };
  } finally {
    await context.close();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
function medians(loads: PageLoad[]) {
  const out: Record<string, number> = {};
  for (const k of ["fcpMs", "contentMs", "interactiveMs", "jsTransferKb", "jsDecodedKb", "scripts"] as const)
    out[k] = median(loads.map((l) => l[k]));
  return out;
}

/** A tree of `n` small JavaScript files in folders of 50, with a README. */
function writeTree(dir: string, n: number) {
  writeFileSync(path.join(dir, "README.md"), "# Bench app\n\nFive thousand small modules.\n");
  for (let i = 0; i < n; i++) {
    const folder = path.join(dir, "src", `part${Math.floor(i / 50)}`);
    if (i % 50 === 0) mkdirSync(folder, { recursive: true });
    writeFileSync(
      path.join(folder, `mod${i}.js`),
      `// Module ${i}\nexport function handler${i}(req, res) {\n  const id = Number(req.params.id);\n  return res.json({ id, n: ${i} });\n}\n`,
    );
  }
}

async function waitReady(user: TestUser, snapshotUid: string, timeoutMs = 600_000): Promise<void> {
  const started = Date.now();
  for (;;) {
    const s = await user.client.ok<{ status: string; message: string | null }>("query", "snapshots.get", {
      snapshotUid,
    });
    if (s.status === "ready") return;
    if (s.status === "failed") throw new Error(`import failed: ${s.message}`);
    if (Date.now() - started > timeoutMs) throw new Error("import did not finish");
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Uploads a zip as the import panel does; resolves with the wall time until the snapshot is ready. */
async function importZip(server: RunningServer, user: TestUser, projectUid: string, zip: Buffer): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${server.url}/api/projects/${projectUid}/upload?kind=zip`, {
    method: "POST",
    body: new Uint8Array(zip),
    headers: { cookie: user.client.cookie, "x-file-name": "app.zip", origin: server.url },
  });
  if (!res.ok) throw new Error(`upload failed: ${res.status} ${await res.text()}`);
  const { snapshotUid } = (await res.json()) as { snapshotUid: string };
  await waitReady(user, snapshotUid);
  return Math.round(performance.now() - started);
}

/** A 92-file Node.js app as a zip (routes, models, tests, config), like the one the issue imported. */
function appZip(): Buffer {
  const entries = [
    { name: "shop/package.json", data: JSON.stringify({ name: "shop", version: "1.0.0", main: "src/index.js" }) },
    { name: "shop/README.md", data: "# Shop\n\nA small Express shop.\n" },
    { name: "shop/.dockerignore", data: "node_modules\n" },
  ];
  for (let i = 0; i < 89; i++) {
    const dir = ["src/routes", "src/models", "src/lib", "test"][i % 4]!;
    entries.push({
      name: `shop/${dir}/file${i}.js`,
      data: `const express = require("express");\nconst router = express.Router();\nrouter.get("/item/${i}", async (req, res) => {\n  const q = req.query.q;\n  res.send(\`<p>\${q}</p>\`);\n});\nmodule.exports = router;\n`,
    });
  }
  return buildZip(entries);
}

export default async function pages() {
  buildIfNeeded(repoRoot, (m) => console.error(m));
  const tree = mkdtempSync(path.join(os.tmpdir(), "argus-bench-pages-"));
  writeTree(tree, FILES);
  const testDb = await createTestConfig({
    IMPORT_PATH_ROOTS: tree,
    ...(process.env.BENCH_PORT ? { PORT: process.env.BENCH_PORT } : {}),
  });
  const server = await startServer({ config: testDb.config, ui: true });
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
  try {
    const owner = await signUp(server.url, { name: "Owner" });
    const ws = owner.workspaceId;

    // Imports first, in a process that has imported nothing yet: the first import pays the cold costs.
    const zip = appZip();
    const zipProject = await owner.client.ok<{ uid: string }>("mutate", "projects.create", {
      workspaceId: ws,
      uid: crypto.randomUUID(),
      name: "Shop",
    });
    const firstImportMs = await importZip(server, owner, zipProject.uid, zip);
    const reimportMs = await importZip(server, owner, zipProject.uid, zip);

    const project = await owner.client.ok<{ uid: string }>("mutate", "projects.create", {
      workspaceId: ws,
      uid: crypto.randomUUID(),
      name: "Five thousand files",
    });
    const bigImportStarted = performance.now();
    const snap = await owner.client.ok<{ uid: string }>("mutate", "snapshots.importPath", {
      projectUid: project.uid,
      path: tree,
    });
    await waitReady(owner, snap.uid);
    const bigImportMs = Math.round(performance.now() - bigImportStarted);

    // A finished review with 300 findings: the static engine's report, with findings added up to 300.
    const review = await owner.client.ok<{ uid: string }>("mutate", "reviews.start", {
      projectUid: project.uid,
      engine: "static",
      scope: { kind: "project" },
      settings: { verify: false },
    });
    const { db } = server.services;
    for (;;) {
      const r = await db.review.findUniqueOrThrow({ where: { uid: review.uid } });
      if (r.status === "completed") break;
      if (r.status === "failed") throw new Error(`review failed: ${r.statusReason}`);
      await new Promise((res) => setTimeout(res, 200));
    }
    const row = await db.review.findUniqueOrThrow({ where: { uid: review.uid } });
    const have = await db.reviewFinding.count({ where: { reviewId: row.id } });
    const severities = ["critical", "high", "medium", "low", "info"];
    await db.reviewFinding.createMany({
      data: Array.from({ length: Math.max(0, FINDINGS - have) }, (_, i) => ({
        reviewId: row.id,
        projectId: row.projectId,
        fingerprint: `bench-${i}`,
        title: `Unvalidated input reaches a response (${i})`,
        severity: severities[i % 5]!,
        confidence: 0.8,
        category: "security",
        file: `src/part${Math.floor(i / 50)}/mod${i}.js`,
        startLine: 3,
        endLine: 4,
        evidence: "return res.json({ id, n });",
        explanation: "The id parameter is used without a check.",
        source: "static",
      })),
    });
    await db.review.update({ where: { id: row.id }, data: { findingsCount: FINDINGS } });

    const pipeline = await owner.client.ok<{ uid: string }>("mutate", "pipelines.create", {
      workspaceId: ws,
      name: "bench_pipeline",
      source: "servers:\n  sayhello: servers/sayhello\npipeline:\n  - sayhello.greet\n  - sayhello.greet\n",
    });

    const stop = await stopSettle(server, owner);

    const targets = {
      staticBaseline: { url: `${server.url}/bench-static.html`, content: "h1", user: null },
      dashboard: { url: `${server.url}/`, content: "main h1", user: owner },
      project: { url: `${server.url}/projects/${project.uid}`, content: '[aria-label="Files"] a', user: owner },
      review: { url: `${server.url}/reviews/${review.uid}`, content: '[aria-label="Findings"] li', user: owner },
      pipeline: { url: `${server.url}/pipelines/${pipeline.uid}`, content: ".react-flow__node", user: owner },
    } as const;
    const results: Record<string, { median: Record<string, number>; each: PageLoad[] }> = {};
    for (const [name, t] of Object.entries(targets)) {
      await load(browser, t.url, t.user, t.content); // warm-up: the server's compiled routes and caches
      const each: PageLoad[] = [];
      for (let i = 0; i < LOADS; i++) each.push(await load(browser, t.url, t.user, t.content));
      results[name] = { median: medians(each), each };
    }
    return {
      loads: LOADS,
      unit: "ms from navigation (median of cold loads, cache disabled); JS in KB",
      setup: { files: FILES, findings: FINDINGS, bigImportMs },
      pages: Object.fromEntries(Object.entries(results).map(([k, v]) => [k, v.median])),
      imports: { zipFiles: 92, firstImportMs, reimportMs, ratio: Math.round((firstImportMs / reimportMs) * 10) / 10 },
      stop,
      targets: { contentMs: 1000, interactiveMs: 1500, firstImportVsReimport: 2, stopSettleMs: 1000 },
      each: Object.fromEntries(Object.entries(results).map(([k, v]) => [k, v.each])),
    };
  } finally {
    await browser.close();
    await server.close();
    await testDb.cleanup();
    rmSync(tree, { recursive: true, force: true });
  }
}
