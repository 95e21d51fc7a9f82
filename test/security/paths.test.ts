/**
 * Hostile paths against everything that reads a snapshot's files: each review-agent tool (through
 * the real Sandbox, exactly as the agent loop runs them) and each route or procedure that takes a
 * path (file view, outline, findings filters, search globs, exports and uploads by URL). Canaries are
 * planted after the import — files outside the snapshot (inside and outside DATA_DIR), ignored files
 * inside (.env, node_modules, .git, gitignored), symlinks pointing out, an indexed file swapped for a
 * link — and every answer is searched for them: zero bytes may come back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { snapshotDirs } from "../../server/snapshots/storage.ts";
import {
  createReviewTools,
  runToolCall,
  TOOL_NAMES,
  type ReviewToolSet,
  type ToolName,
  type ToolContext,
  Sandbox,
  staticInputFromRow,
} from "../../server/agent/index.ts";
import { findLeaks, HOST_FILE_MARKERS } from "./support/canaries.ts";
import { hostilePaths, plantHostileFiles, type PlantedSnapshot } from "./support/hostile-paths.ts";
import { rawRequest } from "./support/wire.ts";
import { buildWorld, dataDirOf, type World } from "./support/world.ts";

let w: World;
let planted: PlantedSnapshot;
let tools: ReviewToolSet;
let paths: string[];
let needles: string[];

/** How each tool receives a path (or a path-like string): one entry per tool, checked against TOOL_NAMES. */
const TOOL_ARGS: Record<ToolName, (p: string) => Record<string, unknown>[]> = {
  list_dir: (p) => [{ path: p, depth: 3 }],
  read_file: (p) => [{ path: p }],
  grep: (p) => [{ pattern: ".", path: p }],
  list_symbols: (p) => [{ file: p }],
  find_definition: (p) => [{ name: p }],
  find_references: (p) => [{ name: p }],
  find_module: (p) => [
    { specifier: p, from_file: "src/app.ts" },
    { specifier: "./util", from_file: p },
  ],
  get_file_summary: (p) => [{ path: p }],
  get_static_analysis: (p) => [{ file: p }],
  get_diff: (p) => [{ from: "HEAD~1", paths: [p] }], // and in batches: see the test
  get_git_log: (p) => [{ path: p }],
  search_code: (p) => [{ query: "formatName findUser", path_glob: p }],
};

/**
 * Tools (and below, procedures) that take the path as a filter over what was indexed rather than as a
 * file to open get every sixth path: all of them would be too many index queries for the time budget.
 */
const FILTER_TOOLS: ToolName[] = ["search_code", "get_static_analysis", "find_definition", "find_references"];
const sample = (all: string[]) => all.filter((_, i) => i % 6 === 0);

/** Tools whose whole job is to open the path: every hostile one must be an error. */
const MUST_REFUSE: ToolName[] = ["read_file", "list_dir", "get_file_summary"];

beforeAll(async () => {
  w = await buildWorld();
  const { db } = w.server.services;
  const snap = await db.snapshot.findUniqueOrThrow({ where: { uid: w.a.snapshotUid } });
  const dirs = snapshotDirs(dataDirOf(w), snap.projectId, snap.id);
  planted = plantHostileFiles({
    root: w.a.snapshotRoot,
    dataDir: dataDirOf(w),
    canaries: w.canaries,
    swap: "src/util.ts",
  });
  const actor = { userId: w.a.owner.userId, email: w.a.owner.email, name: "Owner" };
  const ctx: ToolContext = {
    root: dirs.src,
    symbolsPath: dirs.symbols,
    staticFindings: async () =>
      (await db.staticFinding.findMany({ where: { snapshotId: snap.id } })).map(staticInputFromRow),
    searchCode: async (query, opts) =>
      (
        await w.server.services.snapshots.search(actor, {
          snapshotUid: w.a.snapshotUid,
          query,
          mode: opts.mode ?? "hybrid",
          k: opts.k ?? 10,
          pathGlob: opts.pathGlob,
          language: opts.language,
        })
      ).map((h) => ({ ...h, symbolPath: h.symbolPath ?? undefined })),
  };
  tools = createReviewTools(ctx);
  paths = hostilePaths(planted, dataDirOf(w));
  needles = [w.canaries.outside, w.canaries.outsideName, w.canaries.ignored, ...HOST_FILE_MARKERS, w.secrets.at(-1)!];
}, 180_000);

afterAll(async () => {
  tools?.close();
  planted?.cleanup();
  await w?.close();
});

const show = (p: string) => JSON.stringify(p.length > 80 ? `${p.slice(0, 77)}...` : p);

/** Runs fn over the items a few at a time (rg and git are spawned per call; two cores are shared). */
async function inBatches<T>(items: readonly T[], fn: (item: T) => Promise<void>, size = 6): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

describe("the attack surface is covered", () => {
  it("at least 300 distinct hostile paths are generated", () => {
    expect(paths.length).toBeGreaterThanOrEqual(300);
    expect(new Set(paths).size).toBe(paths.length);
  });

  it("every review tool has a way to receive a hostile path", () => {
    expect(Object.keys(TOOL_ARGS).sort()).toEqual([...TOOL_NAMES].sort());
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
  });

  it("the tools do work on the snapshot's own files (the refusals below are about the paths)", async () => {
    const read = await runToolCall(tools, "read_file", { path: "src/app.ts" });
    expect(read.isError).toBeFalsy();
    expect(read.text).toContain("findUser");
    const grep = await runToolCall(tools, "grep", { pattern: "findUser", path: "." });
    expect(grep.text).toContain("src/app.ts");
    const diff = await runToolCall(tools, "get_diff", { from: "HEAD~1" });
    expect(diff.text).toContain("touched");
    const search = await runToolCall(tools, "search_code", { query: "findUser", mode: "fulltext" });
    expect(search.text).toContain("src/app.ts");
  });
});

describe("review tools: zero bytes from outside the snapshot or from ignored files", { timeout: 120_000 }, () => {
  for (const name of TOOL_NAMES) {
    it(name, async () => {
      const problems: string[] = [];
      if (name === "get_diff") return diffInBatches(problems);
      await inBatches(FILTER_TOOLS.includes(name) ? sample(paths) : paths, async (p) => {
        for (const args of TOOL_ARGS[name](p)) {
          const r = await runToolCall(tools, name, args);
          const leaks = findLeaks(r.text, needles);
          if (leaks.length) problems.push(`${show(p)} leaked ${leaks.join(", ")}`);
          if (MUST_REFUSE.includes(name) && !r.isError) problems.push(`${show(p)} was opened: ${r.text.slice(0, 120)}`);
          if (r.isError && !/\S/.test(r.text)) problems.push(`${show(p)}: an error without a message`);
        }
      });
      expect(problems).toEqual([]);
    });
  }

  it("grep's glob filter", async () => {
    const problems: string[] = [];
    await inBatches(sample(paths), async (p) => {
      const r = await runToolCall(tools, "grep", { pattern: "CANARY", literal: true, path: ".", glob: p });
      const leaks = findLeaks(r.text, needles);
      if (leaks.length) problems.push(`${show(p)} leaked ${leaks.join(", ")}`);
    });
    expect(problems).toEqual([]);
  });

  it("whole-snapshot sweeps (list everything, grep everything, the full diff and log) show no canary", async () => {
    const calls: [ToolName, Record<string, unknown>][] = [
      ["list_dir", { path: ".", depth: 4 }],
      ["grep", { pattern: ".", path: "." }],
      ["grep", { pattern: "CANARY", literal: true }],
      ["get_diff", { from: "HEAD~1", context_lines: 20 }],
      ["get_git_log", {}],
      ["get_static_analysis", {}],
      ["list_symbols", {}],
      ["search_code", { query: "CANARY TOKEN secret", mode: "hybrid", k: 50 }],
      ["get_file_summary", { path: planted.swapped }],
    ];
    for (const [name, args] of calls) {
      const r = await runToolCall(tools, name, args);
      expect(findLeaks(r.text, needles), `${name} ${JSON.stringify(args)}`).toEqual([]);
    }
    // Searching for the canaries themselves finds nothing (the answer only echoes the pattern).
    for (const pattern of [w.canaries.outside, w.canaries.ignored, ...HOST_FILE_MARKERS]) {
      const r = await runToolCall(tools, "grep", { pattern, literal: true });
      expect(r.text, pattern).toMatch(/^No matches/);
    }
  });
});

/**
 * get_diff runs git several times per call. Paths the Sandbox refuses lexically (or as ignored) go one
 * per call — refused before git runs, so cheap; the rest go 40 to a call, which git answers with one
 * diff: anything any of them reached would be in that answer. A batch the tool refuses as a whole is
 * retried path by path.
 */
async function diffInBatches(problems: string[]): Promise<void> {
  const sandbox = new Sandbox(w.a.snapshotRoot);
  const passes = (p: string) => {
    try {
      const rel = sandbox.normalise(p);
      if (rel !== "") sandbox.checkNotIgnored(rel);
      return true;
    } catch {
      return false;
    }
  };
  const check = async (batch: string[]) => {
    const r = await runToolCall(tools, "get_diff", { from: "HEAD~1", paths: batch, context_lines: 20 });
    const leaks = findLeaks(r.text, needles);
    if (leaks.length)
      problems.push(`${batch.length === 1 ? show(batch[0]!) : `${batch.length} paths`} leaked ${leaks}`);
    return r;
  };
  await inBatches(
    paths.filter((p) => !passes(p)),
    async (p) => {
      if (!(await check([p])).isError) problems.push(`${show(p)} was not refused`);
    },
    20,
  );
  const accepted = paths.filter(passes);
  for (let i = 0; i < accepted.length; i += 40) {
    const batch = accepted.slice(i, i + 40);
    if ((await check(batch)).isError) await inBatches(batch, (p) => check([p]).then(() => undefined));
  }
  expect(problems).toEqual([]);
}

describe(
  "routes and procedures that take a path: zero bytes from outside or from ignored files",
  { timeout: 90_000 },
  () => {
    /** Runs the calls a few at a time (the server has two cores to share). */
    async function sweep(
      call: (p: string) => Promise<{ status: number; body: unknown }>,
      mustRefuse: boolean,
      over: string[] = paths,
    ) {
      const problems: string[] = [];
      await inBatches(
        over,
        async (p) => {
          const r = await call(p).catch((err: unknown) => {
            // Node's HTTP parser drops a request line over 16 KB: only the very long paths may get here.
            if (encodeURIComponent(p).length < 8000) problems.push(`${show(p)} failed: ${String(err)}`);
            return { status: 0, body: "" };
          });
          const leaks = findLeaks(r.body, needles);
          if (leaks.length) problems.push(`${show(p)} leaked ${leaks.join(", ")}`);
          if (mustRefuse && r.status === 200) problems.push(`${show(p)} answered 200`);
          if (r.status >= 500) problems.push(`${show(p)} answered ${r.status}`);
        },
        8,
      );
      expect(problems).toEqual([]);
      expect((await fetch(`${w.server.url}/api/health`)).status).toBe(200);
    }
    const owner = () => w.a.owner.client;
    const snapshotUid = () => w.a.snapshotUid;

    it("snapshots.file (the project page's file view)", async () => {
      await sweep((p) => owner().query("snapshots.file", { snapshotUid: snapshotUid(), path: p }), true);
      // The swapped file is listed by the index, but its link is not followed.
      const swapped = await owner().query("snapshots.file", { snapshotUid: snapshotUid(), path: planted.swapped });
      expect(swapped.status).not.toBe(200);
      expect(findLeaks(swapped.body, needles)).toEqual([]);
    });

    it("snapshots.outline", () =>
      sweep((p) => owner().query("snapshots.outline", { snapshotUid: snapshotUid(), path: p }), false));

    it("snapshots.findings and reviews.findings filtered by file (a sample: they filter rows, open no file)", async () => {
      await sweep(
        (p) => owner().query("snapshots.findings", { snapshotUid: snapshotUid(), file: p }),
        false,
        sample(paths),
      );
      await sweep(
        (p) => owner().query("reviews.findings", { reviewUid: w.a.reviewUid, file: p }),
        false,
        sample(paths),
      );
    });

    it("snapshots.search filtered by a path glob (a sample: the glob filters index rows)", () =>
      sweep(
        (p) => owner().query("snapshots.search", { snapshotUid: snapshotUid(), query: "findUser", pathGlob: p }),
        false,
        sample(paths),
      ));

    it("exports and uploads with the path in the URL", async () => {
      const asUrl = (p: string) =>
        p.replace(/[^\x21-\x7e]/g, (ch) => encodeURIComponent(ch)).replace(/[?#]/g, encodeURIComponent);
      const raw = (method: string, url: string) =>
        rawRequest(w.server.url, { method, path: url, headers: { cookie: owner().cookie } }).then((r) => ({
          status: r.status,
          body: r.body,
        }));
      await sweep((p) => raw("GET", `/api/reviews/${asUrl(p)}/export?format=md`), true);
      await sweep((p) => raw("GET", `/api/reviews/${w.a.reviewUid}/export/${asUrl(p)}?format=json`), true);
      await sweep((p) => raw("GET", `/${asUrl(p)}`), true);
      await sweep((p) => raw("POST", `/api/projects/${asUrl(p)}/upload?kind=zip`), true);
      await sweep((p) => raw("GET", `/api/reviews/${w.a.reviewUid}/export?format=${encodeURIComponent(p)}`), true);
    });

    it("the export of A's review carries no canary in any format", async () => {
      for (const format of ["md", "sarif", "json"]) {
        const r = await rawRequest(w.server.url, {
          path: `/api/reviews/${w.a.reviewUid}/export?format=${format}`,
          headers: { cookie: owner().cookie },
        });
        expect(r.status).toBe(200);
        expect(findLeaks(r.body, needles), format).toEqual([]);
      }
    });
  },
);
