/**
 * Runs ripgrep (@vscode/ripgrep's bundled rg) over a snapshot and returns its matching and context
 * lines, sorted by path, with every ignored path filtered out.
 *
 * Model input never becomes an rg flag: the pattern goes in as `--regexp=<pattern>` and each glob as
 * `--glob=<glob>` (one argv element each), the search path after `--`. rg runs with cwd = root,
 * `--no-config` (no RIPGREP_CONFIG_PATH), `--no-follow`, the default Rust regex engine (linear time:
 * no PCRE, no catastrophic backtracking), a per-file size cap equal to the walker's, long lines cut
 * by rg itself, a timeout, and an output cap after which it is stopped.
 *
 * Ignore rules: rg does not read the project's .gitignore / .ignore / .rgignore files (--no-ignore;
 * a hostile `.rgignore` can't re-include anything); it gets Argus's DEFAULT_IGNORES as an ignore file
 * only to prune node_modules & co. early. Every result path is then checked with the snapshot's own
 * matcher (defaults + nested .gitignore), the one the walker and the Sandbox use: that check decides.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { StringDecoder } from "node:string_decoder";
import { rgPath } from "@vscode/ripgrep";
import { DEFAULT_IGNORES, type IgnoreMatcher } from "../../codebase/filters.ts";
import { WALK_DEFAULTS } from "../../codebase/walker.ts";

export interface RgQuery {
  pattern: string;
  /** Search for the pattern as plain text, not a regex. */
  literal?: boolean;
  caseMode?: "sensitive" | "insensitive" | "smart";
  /** rg globs relative to the root; "!x" excludes. */
  globs?: readonly string[];
  context?: number;
  /** Relative path (validated by the Sandbox) to search in; "" = the whole root. */
  target?: string;
  /** The target is a single file: no size cap (the user asked for that file). */
  targetIsFile?: boolean;
  /** Characters rg keeps of a long line (it prints a preview and a count of the rest). */
  maxColumns?: number;
}

export interface RgRow {
  line: number;
  text: string;
  /** A context line around a match (not a match itself). */
  context: boolean;
}

export interface RgResult {
  /** Files with their rows in line order, files sorted by path. */
  files: { path: string; rows: RgRow[] }[];
  matchingLines: number;
  /** Rows dropped because their path is ignored by the snapshot's rules. */
  ignoredRows: number;
  /** rg was stopped (output cap or timeout): counts are lower bounds. */
  stopped: "output_cap" | "timeout" | null;
  /** rg's error (exit 2), e.g. a regex syntax error; partial results may still be present. */
  error: string | null;
  durationMs: number;
}

export interface RgOptions {
  matcher: IgnoreMatcher;
  signal?: AbortSignal;
  timeoutMs: number;
  maxScanBytes: number;
}

let ignoreFile: string | undefined;
/** DEFAULT_IGNORES as an rg ignore file, written once per process in a private temp folder. */
function defaultIgnoreFile(): string {
  // Rewritten if a temp-folder cleaner removed it while the server runs.
  if (!ignoreFile || !existsSync(ignoreFile)) {
    const dir = mkdtempSync(path.join(os.tmpdir(), "argus-rg-"));
    const file = path.join(dir, "default-ignores");
    writeFileSync(file, DEFAULT_IGNORES.join("\n") + "\n", { mode: 0o600 });
    ignoreFile = file;
  }
  return ignoreFile;
}

/** The argv for a query (exported for the measurement, which runs rg with the same arguments). */
export function ripgrepArgs(q: RgQuery): string[] {
  const args = [
    "--no-config",
    "--no-messages",
    "--color=never",
    "--null",
    "--line-number",
    "--with-filename",
    "--no-heading",
    "--no-follow",
    "--no-ignore",
    "--hidden",
    `--ignore-file=${defaultIgnoreFile()}`,
    "--ignore-file-case-insensitive",
    `--max-columns=${q.maxColumns ?? 300}`,
    "--max-columns-preview",
  ];
  if (!q.targetIsFile) args.push(`--max-filesize=${WALK_DEFAULTS.maxFileBytes}`);
  if (q.literal) args.push("--fixed-strings");
  args.push(
    q.caseMode === "insensitive" ? "--ignore-case" : q.caseMode === "smart" ? "--smart-case" : "--case-sensitive",
  );
  if (q.context) args.push(`--context=${q.context}`);
  for (const g of q.globs ?? []) args.push(`--glob=${g}`);
  // Output is parsed line by line: a file name with a newline would let its matches be read as
  // another file's (and escape the ignore check). Such files are never searched; the last glob wins.
  args.push("--glob=!*[\u0001-\u001f]*");
  args.push(`--regexp=${q.pattern}`, "--", q.target ? q.target : ".");
  return args;
}

/** rg's own error text, cut to what helps ("regex parse error: … unclosed group"). */
function rgError(stderr: string): string {
  const text = stderr.replace(/^rg: /gm, "").trim();
  return text.length > 800 ? `${text.slice(0, 800)}…` : text;
}

export function runRipgrep(root: string, q: RgQuery, o: RgOptions): Promise<RgResult> {
  const started = performance.now();
  return new Promise<RgResult>((resolve, reject) => {
    if (o.signal?.aborted) return reject(o.signal.reason);
    // An empty environment: rg needs none, and RIPGREP_CONFIG_PATH & co. must not reach it.
    const child = spawn(rgPath, ripgrepArgs(q), {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
      env: {} as NodeJS.ProcessEnv,
    });
    const byPath = new Map<string, RgRow[]>();
    const verdicts = new Map<string, boolean>();
    const decoder = new StringDecoder("utf8");
    let pending = "";
    let scanned = 0;
    let matchingLines = 0;
    let ignoredRows = 0;
    let stopped: RgResult["stopped"] = null;
    let stderr = "";
    let settled = false;

    const ignored = (p: string): boolean => {
      let v = verdicts.get(p);
      if (v === undefined) {
        v = o.matcher.ignores(p);
        verdicts.set(p, v);
      }
      return v;
    };

    const take = (line: string) => {
      if (line === "" || line === "--") return; // group separator: gaps are re-derived from line numbers
      const nul = line.indexOf("\0");
      if (nul < 0) return;
      let p = line.slice(0, nul);
      if (p.startsWith("./")) p = p.slice(2);
      let i = nul + 1;
      let n = 0;
      while (i < line.length) {
        const c = line.charCodeAt(i);
        if (c < 48 || c > 57) break;
        n = n * 10 + (c - 48);
        i++;
      }
      const sep = line[i];
      if (sep !== ":" && sep !== "-") return;
      if (ignored(p)) {
        ignoredRows++;
        return;
      }
      const context = sep === "-";
      if (!context) matchingLines++;
      let rows = byPath.get(p);
      if (!rows) byPath.set(p, (rows = []));
      rows.push({ line: n, text: line.slice(i + 1), context });
    };

    const stop = (why: NonNullable<RgResult["stopped"]>) => {
      if (!stopped) stopped = why;
      child.kill("SIGKILL");
    };
    const timer = setTimeout(() => stop("timeout"), o.timeoutMs);
    const onAbort = () => child.kill("SIGKILL");
    o.signal?.addEventListener("abort", onAbort, { once: true });

    child.stdout.on("data", (chunk: Buffer) => {
      if (stopped) return;
      scanned += chunk.length;
      const text = pending + decoder.write(chunk);
      let start = 0;
      for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
        take(text.slice(start, nl));
        start = nl + 1;
      }
      pending = text.slice(start);
      if (scanned > o.maxScanBytes) stop("output_cap");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 16_384) stderr += chunk.toString("utf8");
    });
    const finish = (code: number | null, spawnError?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      o.signal?.removeEventListener("abort", onAbort);
      if (o.signal?.aborted) return reject(o.signal.reason);
      if (spawnError) return reject(spawnError);
      if (!stopped && pending) take(pending + decoder.end());
      const files = [...byPath.keys()]
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
        .map((p) => ({ path: p, rows: byPath.get(p)! }));
      resolve({
        files,
        matchingLines,
        ignoredRows,
        stopped,
        error: code === 2 && !stopped ? rgError(stderr) || "ripgrep failed" : null,
        durationMs: performance.now() - started,
      });
    };
    child.on("error", (err) => finish(null, err));
    child.on("close", (code) => finish(code));
  });
}
