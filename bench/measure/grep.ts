/**
 * Measurement (not a test): the grep tool against plain `rg` on a ≥100k-line tree of real code, in the
 * same run, with the same query and the same rg arguments — so the ratio is exactly what the tool adds
 * (Sandbox check, spawn wrapper, parsing, ignore filtering, sorting, formatting). Target: ≤ 1.3×.
 *
 *   node --import tsx bench/measure/grep.ts        (prints the result as JSON)
 *
 * bench/agent.ts imports measureGrep(). The tree (TypeScript sources of @anthropic-ai/sdk and the
 * .d.ts files of typescript/lib, copied — and replicated if need be — until it has ≥ 100k lines) is built once in the temp folder
 * and reused by later runs.
 */
import { spawn } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { rgPath } from "@vscode/ripgrep";
import { WALK_DEFAULTS } from "../../server/codebase/walker.ts";
import { createReviewTools, runToolCall, ripgrepArgs, type RgQuery } from "../../server/agent/index.ts";

const TREE_VERSION = 3;
const MIN_LINES = 100_000;

export interface GrepMeasureQuery {
  args: { pattern: string; literal?: boolean; case?: "sensitive" | "insensitive" | "smart"; glob?: string };
  matchingLines: number;
  toolP50Ms: number;
  rgP50Ms: number;
}

export interface GrepMeasurement {
  tree: { dir: string; files: number; lines: number; reused: boolean };
  iterations: number;
  queries: GrepMeasureQuery[];
  /** p50 over every run of every query. */
  toolP50Ms: number;
  rgP50Ms: number;
  /** toolP50Ms / rgP50Ms; the target is ≤ 1.3. */
  ratio: number;
  target: number;
}

const QUERIES: GrepMeasureQuery["args"][] = [
  { pattern: "apiKey" },
  { pattern: "Promise<", literal: true },
  { pattern: "interface \\w+Params" },
  { pattern: "TODO|FIXME|XXX" },
  { pattern: "readonly", case: "insensitive", glob: "*.d.ts" },
  { pattern: "function\\s+\\w+Stream" },
];

const p50 = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

function countLines(file: string): number {
  const buf = readFileSync(file);
  let n = 0;
  for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) n++;
  return n;
}

/** Source files to copy: the SDK's TypeScript sources and the typescript/lib declaration files (≤ the walker's size cap). */
function sourceFiles(): { abs: string; rel: string }[] {
  const require = createRequire(import.meta.url);
  const nodeModules = path.resolve(path.dirname(require.resolve("typescript/package.json")), "..");
  const out: { abs: string; rel: string }[] = [];
  const walk = (dir: string, rel: string, keep: (name: string) => boolean) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) walk(abs, `${rel}/${e.name}`, keep);
      else if (e.isFile() && keep(e.name) && statSync(abs).size <= WALK_DEFAULTS.maxFileBytes)
        out.push({ abs, rel: `${rel}/${e.name}` });
    }
  };
  const tsLib = path.join(nodeModules, "typescript", "lib");
  for (const name of readdirSync(tsLib)) {
    const abs = path.join(tsLib, name);
    if (name.endsWith(".d.ts") && statSync(abs).isFile() && statSync(abs).size <= WALK_DEFAULTS.maxFileBytes)
      out.push({ abs, rel: `tslib/${name}` });
  }
  walk(path.join(nodeModules, "@anthropic-ai", "sdk", "src"), "sdk", (n) => /\.(ts|mts|js)$/.test(n));
  return out;
}

/** Builds (or reuses) the tree; also plants what a real snapshot has: a .gitignore and ignored folders. */
export function grepTree(dir = path.join(os.tmpdir(), `argus-measure-grep-v${TREE_VERSION}`)): GrepMeasurement["tree"] {
  const marker = path.join(dir, ".argus-measure.json");
  if (existsSync(marker)) {
    const m = JSON.parse(readFileSync(marker, "utf8")) as { files: number; lines: number };
    return { dir, ...m, reused: true };
  }
  rmSync(dir, { recursive: true, force: true });
  const sources = sourceFiles();
  if (sources.length === 0) throw new Error("No source files found to build the grep measurement tree.");
  let files = 0;
  let lines = 0;
  for (let copy = 0; lines < MIN_LINES; copy++) {
    for (const s of sources) {
      if (lines >= MIN_LINES) break;
      const dest = path.join(dir, `copy${copy}`, s.rel);
      mkdirSync(path.dirname(dest), { recursive: true });
      copyFileSync(s.abs, dest);
      lines += countLines(dest);
      files++;
    }
  }
  writeFileSync(path.join(dir, ".gitignore"), "*.log\ngenerated/\n");
  mkdirSync(path.join(dir, "node_modules", "dep"), { recursive: true });
  writeFileSync(path.join(dir, "node_modules", "dep", "index.js"), "export const apiKey = 'vendored';\n");
  writeFileSync(marker, JSON.stringify({ files, lines }));
  return { dir, files, lines, reused: false };
}

/** rg alone, same arguments as the tool, reading all of its output. */
function runRg(root: string, q: RgQuery): Promise<number> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(rgPath, ripgrepArgs(q), {
      cwd: root,
      stdio: ["ignore", "pipe", "ignore"],
      env: {} as NodeJS.ProcessEnv,
    });
    child.stdout.on("data", () => {});
    child.on("error", reject);
    child.on("close", () => resolve(performance.now() - t));
  });
}

export async function measureGrep(options: { iterations?: number; dir?: string } = {}): Promise<GrepMeasurement> {
  const iterations = options.iterations ?? 7;
  const tree = grepTree(options.dir);
  const tools = createReviewTools({ root: tree.dir, staticFindings: async () => [] }, { only: ["grep"] });
  const queries: GrepMeasureQuery[] = [];
  const allTool: number[] = [];
  const allRg: number[] = [];
  try {
    for (const args of QUERIES) {
      const rgQuery: RgQuery = {
        pattern: args.pattern,
        literal: args.literal,
        caseMode: args.case ?? "sensitive",
        globs: args.glob ? [args.glob] : [],
        target: "",
        maxColumns: 300,
      };
      const toolTimes: number[] = [];
      const rgTimes: number[] = [];
      let matchingLines = 0;
      // One warm-up each (page cache, rg's first start), then interleaved runs so drift hits both sides.
      await runRg(tree.dir, rgQuery);
      await runToolCall(tools, "grep", args);
      for (let i = 0; i < iterations; i++) {
        rgTimes.push(await runRg(tree.dir, rgQuery));
        const t = performance.now();
        const r = await runToolCall(tools, "grep", args);
        toolTimes.push(performance.now() - t);
        if (r.isError) throw new Error(`grep failed during the measurement: ${r.text}`);
        matchingLines = Number(/^(?:at least )?([\d,]+) matching line/.exec(r.text)?.[1]?.replace(/,/g, "") ?? 0);
      }
      allTool.push(...toolTimes);
      allRg.push(...rgTimes);
      queries.push({ args, matchingLines, toolP50Ms: round(p50(toolTimes)), rgP50Ms: round(p50(rgTimes)) });
    }
  } finally {
    tools.close();
  }
  const toolP50Ms = p50(allTool);
  const rgP50Ms = p50(allRg);
  return {
    tree,
    iterations,
    queries,
    toolP50Ms: round(toolP50Ms),
    rgP50Ms: round(rgP50Ms),
    ratio: round(toolP50Ms / rgP50Ms),
    target: 1.3,
  };
}

const round = (n: number) => Math.round(n * 100) / 100;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await measureGrep(), null, 2));
}
