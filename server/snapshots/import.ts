/**
 * One import, start to finish, without any database: materialise a source into `dirs.src`, build
 * the symbol index with Argus's static rules, and summarise. The background job (web app) and
 * `argus ingest` (CLI) both run exactly this.
 */
import { mkdir } from "node:fs/promises";
import {
  ingestGit,
  ingestPath,
  ingestZip,
  resolveLimits,
  type GitNetworkPolicy,
  type ImportPathPolicy,
  type IngestLimits,
  type IngestLimitsInput,
  type IngestProgress,
  type IngestSummary,
} from "../codebase/ingest/index.ts";
import { buildSymbolIndex } from "../codebase/symbols/index.ts";
import { runStaticAnalysis } from "../codebase/analysis/index.ts";
import type { Finding } from "../codebase/analysis/types.ts";
import { connect } from "../retrieval/store/index.ts";
import { indexSnapshotSeeded, type SeedOutcome } from "../retrieval/seed-index.ts";
import type { Embedder } from "../retrieval/embed/types.ts";
import type { snapshotDirs } from "./storage.ts";

export type ImportSource =
  | { kind: "git"; url: string; ref?: string; accessToken?: string; depth?: number }
  /** policy: for a path a user gave (the operator's roots); omitted for the CLI and the demo. */
  | { kind: "path"; path: string; policy?: ImportPathPolicy }
  | { kind: "zip"; zipPath: string }
  | { kind: "uploaded"; summary: IngestSummary };

export interface SnapshotSummary {
  files: number;
  lines: number;
  languages: Record<string, { files: number; lines: number }>;
  symbols: number;
  findingsBySeverity: Record<string, number>;
  skipped: number;
  dropped: number;
  tools: { tool: string; status: string; detail: string }[];
  /** Files whose analysis ended early or covered only what parsed, and why (at most MAX_ANALYSIS_NOTES). */
  analysisNotes?: { path: string; note: string }[];
}

export const MAX_ANALYSIS_NOTES = 100;

export type ImportStage = "ingesting" | "indexing" | "analyzing";

export interface ImportOptions {
  limits?: IngestLimitsInput;
  /** Run the static pre-pass (ESLint, ruff, bandit, ShellCheck; default true). Argus's own rules run with the index regardless. */
  analysis?: boolean;
  /** Where the pre-pass looks for ruff, bandit and ShellCheck (default: PATH). Tests name the tools they run. */
  externalToolsPath?: string;
  /** Per-file budget of the taint analysis in ms (default 3 s): one pathological file cannot stall an import. */
  taintBudgetMs?: number;
  /**
   * Where to build the code-search index (LanceDB directory + index name); omitted: no search index.
   * `seedFrom`: the index of the snapshot this one was derived from (a push): the new index starts as
   * its copy and only the files that differ are re-indexed (retrieval/seed-index.ts).
   */
  search?: { uri: string; name: string; embedder?: Embedder; seedFrom?: string };
  /**
   * Run ESLint with the project's own config when it has one. Off by default: a flat config is
   * JavaScript, so this runs uploaded code on the server (contained in a worker with a timeout).
   */
  projectEslintConfig?: boolean;
  /** Where git may fetch from and whether ssh may use the server's keys (default: public hosts, no keys). */
  git?: GitNetworkPolicy;
  /**
   * A push applied onto a previous snapshot (server/forges): the per-file tools run only on the changed
   * paths and keep the previous snapshot's findings elsewhere (runStaticAnalysis `reuse`).
   */
  reuse?: { changed: ReadonlySet<string>; findings: Finding[] };
}

const FULL_COMMIT = /^[0-9a-f]{40}$/i;

/** Share of a progress bar: materialising fills ~40%, indexing up to ~95%. */
function ingestFraction(p: IngestProgress): number {
  if (p.totalBytes) return Math.min(1, p.bytes / p.totalBytes) * 0.4;
  return Math.min(0.35, 0.05 + p.files / 20_000);
}

function materialise(
  source: ImportSource,
  dest: string,
  limits: IngestLimits,
  onProgress: (p: IngestProgress) => void,
  network: GitNetworkPolicy | undefined,
): Promise<IngestSummary> {
  switch (source.kind) {
    case "uploaded":
      return Promise.resolve(source.summary);
    case "zip":
      return ingestZip({ dest, zipPath: source.zipPath, limits, onProgress });
    case "path":
      return ingestPath({ dest, sourcePath: source.path, policy: source.policy, limits, onProgress });
    case "git":
      return ingestGit({
        dest,
        url: source.url,
        limits,
        onProgress,
        accessToken: source.accessToken,
        network,
        ...(source.depth ? { depth: source.depth } : {}),
        ...(source.ref ? (FULL_COMMIT.test(source.ref) ? { commit: source.ref } : { branch: source.ref }) : {}),
      });
  }
}

export async function runImport(
  source: ImportSource,
  dirs: ReturnType<typeof snapshotDirs>,
  report: (stage: ImportStage, fraction: number, message: string) => void = () => {},
  options: ImportOptions = {},
): Promise<{
  ingest: IngestSummary;
  summary: SnapshotSummary;
  findings: Finding[];
  timings: ImportTimings;
  /** Whether the search index started from `search.seedFrom`'s, or why not. */
  searchSeed?: SeedOutcome;
}> {
  const limits = resolveLimits(options.limits ?? {});
  const clock = stageClock();
  const ingest = await materialise(
    source,
    dirs.src,
    limits,
    (p) => report("ingesting", ingestFraction(p), `${p.phase.replace("_", " ")}: ${p.files} files`),
    options.git,
  );
  const materialiseMs = clock();
  report("indexing", 0.4, `Indexing ${ingest.walk.files.length} files`);
  await mkdir(dirs.index, { recursive: true });
  const index = await buildSymbolIndex({
    root: dirs.src,
    files: ingest.walk.files.map((f) => ({ path: f.path, language: f.language })),
    indexPath: dirs.symbols,
    rules: true,
    maxParseBytes: limits.indexMaxFileBytes,
    ...(options.taintBudgetMs !== undefined ? { taintBudgetMs: options.taintBudgetMs } : {}),
    // Parsing runs in worker threads when the tree is big: the web server's event loop stays free.
    mainThread: false,
    onProgress: ({ done, total }) =>
      report("indexing", 0.4 + 0.45 * (total ? done / total : 1), `Indexing: ${done} of ${total} files`),
  });
  const symbolsMs = clock();
  let searchSeed: SeedOutcome | undefined;
  if (options.search) {
    report("indexing", 0.8, "Building the code search index");
    const store = await connect(options.search.uri);
    try {
      const built = await indexSnapshotSeeded(
        store,
        options.search.name,
        dirs.src,
        ingest.walk.files.map((f) => ({ path: f.path, language: f.language })),
        { embedder: options.search.embedder, seedFrom: options.search.seedFrom },
      );
      searchSeed = built.seed;
      if (built.rebuilt) report("indexing", 0.84, built.rebuilt);
    } finally {
      store.close();
    }
  }
  const searchMs = clock();
  report("analyzing", 0.86, "Static analysis (ESLint; ruff, bandit and ShellCheck when available)");
  const analysis = await runStaticAnalysis({
    root: dirs.src,
    files: ingest.walk.files.map((f) => ({ path: f.path, language: f.language })),
    argusFindings: index.findings,
    taintComplete: index.taintComplete,
    ...(options.reuse ? { reuse: options.reuse } : {}),
    eslint: options.analysis === false ? false : { useProjectConfig: options.projectEslintConfig ?? false },
    external:
      options.analysis === false
        ? false
        : options.externalToolsPath !== undefined
          ? { envPath: options.externalToolsPath }
          : undefined,
  });
  const analysisMs = clock();
  // A file whose analysis stopped early (time budget, nesting, parse errors) is named, with why.
  const notes = index.analysisNotes;
  if (notes.length) {
    const argus = analysis.runs.find((r) => r.tool === "argus");
    if (argus)
      argus.detail = `${argus.detail}; the analysis of ${notes.length} file${notes.length === 1 ? "" : "s"} ended early or covered only what parsed (${notes
        .slice(0, 3)
        .map((n) => n.path)
        .join(", ")}${notes.length > 3 ? ", …" : ""})`;
  }
  const findings = analysis.findings;
  const findingsBySeverity: Record<string, number> = {};
  for (const f of findings) findingsBySeverity[f.severity] = (findingsBySeverity[f.severity] ?? 0) + 1;
  const summary: SnapshotSummary = {
    files: ingest.walk.files.length,
    lines: index.lines,
    languages: Object.fromEntries(
      Object.entries(ingest.languages).map(([k, v]) => [k, { files: v.files, lines: v.lines }]),
    ),
    symbols: index.definitions,
    findingsBySeverity,
    skipped: Object.values(ingest.walk.skippedCounts).reduce((a, b) => a + (b ?? 0), 0),
    dropped: ingest.droppedCount,
    tools: analysis.runs.map((r) => ({ tool: r.tool, status: r.status, detail: r.detail })),
    ...(notes.length ? { analysisNotes: notes.slice(0, MAX_ANALYSIS_NOTES) } : {}),
  };
  return {
    ingest,
    summary,
    findings,
    timings: { materialiseMs, symbolsMs, searchMs, analysisMs },
    ...(searchSeed ? { searchSeed } : {}),
  };
}

/** Where an import's time went, per stage (ms): for the log, and for finding the slow one. */
export interface ImportTimings {
  materialiseMs: number;
  symbolsMs: number;
  searchMs: number;
  analysisMs: number;
}

/** Each call returns the ms since the previous one (or since it was made). */
function stageClock(): () => number {
  let last = performance.now();
  return () => {
    const now = performance.now();
    const ms = Math.round(now - last);
    last = now;
    return ms;
  };
}
