/**
 * The static-analysis pre-pass of a snapshot: Argus's own rules (usually already computed by the
 * symbol index's pass, which parses each file once for both), ESLint on JS/TS, ruff and bandit on
 * Python and ShellCheck on shell scripts when installed; then one finding per location and weakness
 * (merge.ts), each tool's run saying what was merged or left out. Best-effort by contract: it never
 * throws; each tool's outcome is a ToolRun.
 */
import { runFilePass } from "../symbols/pass.ts";
import type { SourceFile } from "../symbols/types.ts";
import { runEslint, type EslintOptions } from "./eslint/index.ts";
import { runExternalTools } from "./external.ts";
import { describeMerge, mergeFindings } from "./merge.ts";
import type { Finding, ToolRun } from "./types.ts";

export type { Finding, Severity, ToolRun } from "./types.ts";
export { SEVERITIES } from "./types.ts";

export interface AnalysisOptions {
  root: string;
  files: SourceFile[];
  /** Findings of buildSymbolIndex (rules: true). When absent, Argus's rules run here (a second parse). */
  argusFindings?: Finding[];
  /** With argusFindings: the files whose taint analysis ran to the end (buildSymbolIndex's taintComplete). */
  taintComplete?: Iterable<string>;
  /** false skips ESLint; an object tunes it (see EslintOptions: useProjectConfig runs project code). */
  eslint?: false | Omit<EslintOptions, "root" | "files">;
  /** false skips ruff, bandit and ShellCheck; envPath is where to look for them (default PATH). */
  external?: false | { timeoutMs?: number; envPath?: string };
  /**
   * A push onto a snapshot already analysed: the per-file tools (ESLint, ruff, bandit, ShellCheck) run
   * only on `changed`; `findings` are theirs from the previous snapshot, on the files that did not
   * change (kept as they were). Argus's own rules always cover every file (they follow data across files).
   */
  reuse?: { changed: ReadonlySet<string>; findings: Finding[] };
}

export interface AnalysisResult {
  /** Every finding, most severe first: the array to persist. */
  findings: Finding[];
  runs: ToolRun[];
}

const SEVERITY_RANK = { critical: 0, high: 1, medium: 2, low: 3, info: 4 } as const;

export async function runStaticAnalysis(options: AnalysisOptions): Promise<AnalysisResult> {
  const findings: Finding[] = [];
  const runs: ToolRun[] = [];
  const reuse = options.reuse;
  const perFile = reuse ? options.files.filter((f) => reuse.changed.has(f.path)) : options.files;
  const paths = perFile.map((f) => f.path);
  if (reuse) {
    const present = new Set(options.files.map((f) => f.path));
    findings.push(...reuse.findings.filter((f) => present.has(f.file) && !reuse.changed.has(f.file)));
  }

  const started = performance.now();
  const taintComplete = new Set(options.argusFindings ? (options.taintComplete ?? []) : []);
  try {
    let argus = options.argusFindings;
    if (!argus) {
      argus = [];
      for (const file of options.files) {
        const pass = await runFilePass(file, { root: options.root, rules: true });
        argus.push(...pass.findings);
        if (pass.taintComplete) taintComplete.add(file.path);
      }
    }
    findings.push(...argus);
    runs.push({
      tool: "argus",
      status: "ran",
      detail: options.argusFindings ? "rules ran in the symbol index pass" : "rules ran on their own parse",
      files: options.files.length,
      findings: argus.length,
      durationMs: Math.round(performance.now() - started),
    });
  } catch (err) {
    runs.push({
      tool: "argus",
      status: "failed",
      detail: err instanceof Error ? err.message : String(err),
      files: 0,
      findings: 0,
      durationMs: Math.round(performance.now() - started),
    });
  }

  if (options.eslint === false)
    runs.push({ tool: "eslint", status: "skipped", detail: "disabled", files: 0, findings: 0, durationMs: 0 });
  else {
    const eslint = await runEslint({ ...(options.eslint ?? {}), root: options.root, files: paths });
    findings.push(...eslint.findings);
    runs.push(eslint.run);
  }

  if (options.external === false)
    runs.push(
      ...(["ruff", "bandit", "shellcheck"] as const).map((tool) => ({
        tool,
        status: "skipped" as const,
        detail: "disabled",
        files: 0,
        findings: 0,
        durationMs: 0,
      })),
    );
  else {
    try {
      const external = await runExternalTools({
        root: options.root,
        files: perFile,
        ...(options.external ?? {}),
      });
      findings.push(...external.findings);
      runs.push(...external.runs);
    } catch (err) {
      runs.push({
        tool: "ruff/bandit/shellcheck",
        status: "failed",
        detail: err instanceof Error ? err.message : String(err),
        files: 0,
        findings: 0,
        durationMs: 0,
      });
    }
  }

  const merged = mergeFindings(findings, { taintComplete });
  for (const run of runs) {
    const said = describeMerge(merged.counts[run.tool]);
    if (said) run.detail = `${run.detail}; ${said}`;
  }
  merged.findings.sort(
    (a, b) =>
      SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] ||
      b.confidence - a.confidence ||
      a.file.localeCompare(b.file) ||
      a.startLine - b.startLine,
  );
  return { findings: merged.findings, runs };
}
