/**
 * ruff and bandit on the Python files and ShellCheck on the shell scripts, when they are on PATH (they
 * are optional: absent → a "skipped" ToolRun, no error). Each runs on explicit file lists (chunked to
 * keep command lines short) from the snapshot root, with a timeout, reading no configuration from the
 * project that could make it read files outside the snapshot, and its JSON output is mapped to
 * findings. Their findings merge with Argus's afterwards (merge.ts).
 */
import { spawn } from "node:child_process";
import path from "node:path";
import type { Finding, Severity, ToolRun } from "./types.ts";
import { findExecutable } from "./which.ts";
import { childProcessEnv } from "../../config.ts";

export interface ExternalOptions {
  root: string;
  /** Snapshot files (posix, relative), with their language when known (a script found by its shebang). */
  files: (string | { path: string; language?: string })[];
  timeoutMs?: number;
  /** PATH to search (tests point it at fakes). */
  envPath?: string;
}

const CHUNK = 200;
const MAX_OUTPUT = 64 * 1024 * 1024;

interface Output {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runProcess(bin: string, args: string[], cwd: string, timeoutMs: number): Promise<Output> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: timeoutMs,
      env: childProcessEnv({ NO_COLOR: "1" }),
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
      if (stdout.length > MAX_OUTPUT) child.kill("SIGKILL");
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr = (stderr + d).slice(-4000)));
    child.on("error", reject);
    child.on("close", (code, signal) =>
      signal
        ? reject(new Error(`${path.basename(bin)} was stopped (${signal}): timeout or output limit`))
        : resolve({ code, stdout, stderr }),
    );
  });
}

const relative = (root: string, file: string) =>
  (path.isAbsolute(file) ? path.relative(root, file) : file).split(path.sep).join("/");

// ---- ruff ----------------------------------------------------------------------------------------

interface RuffDiagnostic {
  code: string | null;
  message: string;
  filename: string;
  location: { row: number; column: number } | null;
  end_location: { row: number; column: number } | null;
}

/** flake8-bandit (S) codes are security checks; the rest of ruff is style and correctness. */
function ruffSeverity(code: string): [Severity, number] {
  if (/^S6\d\d$/.test(code)) return ["high", 0.6]; // subprocess / shell injection
  if (/^S(?:1\d\d|3\d\d|5\d\d|7\d\d)$/.test(code)) return ["medium", 0.5];
  if (code.startsWith("S")) return ["low", 0.5];
  if (/^(?:F|E9|PLE)/.test(code)) return ["low", 0.6]; // real errors: undefined names, syntax
  return ["info", 0.5];
}

export function parseRuffOutput(root: string, stdout: string): Finding[] {
  const items = JSON.parse(stdout || "[]") as RuffDiagnostic[];
  return items.map((d) => {
    const code = d.code ?? "syntax-error";
    const [severity, confidence] = ruffSeverity(code);
    const start = d.location?.row ?? 1;
    return {
      tool: "ruff",
      ruleId: code,
      severity,
      confidence,
      file: relative(root, d.filename),
      startLine: start,
      endLine: Math.max(start, d.end_location?.row ?? start),
      message: d.message,
    };
  });
}

// ---- bandit --------------------------------------------------------------------------------------

interface BanditResult {
  filename: string;
  test_id: string;
  test_name?: string;
  issue_text: string;
  issue_severity: string;
  issue_confidence: string;
  line_number: number;
  line_range?: number[];
}

const BANDIT_SEVERITY: Record<string, Severity> = { HIGH: "high", MEDIUM: "medium", LOW: "low", UNDEFINED: "info" };
const BANDIT_CONFIDENCE: Record<string, number> = { HIGH: 0.8, MEDIUM: 0.5, LOW: 0.3, UNDEFINED: 0.3 };

export function parseBanditOutput(root: string, stdout: string): Finding[] {
  const report = JSON.parse(stdout || "{}") as { results?: BanditResult[] };
  return (report.results ?? []).map((r) => {
    const range = r.line_range?.length ? r.line_range : [r.line_number];
    return {
      tool: "bandit",
      ruleId: r.test_id,
      severity: BANDIT_SEVERITY[r.issue_severity] ?? "info",
      confidence: BANDIT_CONFIDENCE[r.issue_confidence] ?? 0.3,
      file: relative(root, r.filename),
      startLine: r.line_number,
      endLine: Math.max(r.line_number, ...range),
      message: r.test_name ? `${r.issue_text} (${r.test_name})` : r.issue_text,
    };
  });
}

// ---- ShellCheck ----------------------------------------------------------------------------------

interface ShellCheckComment {
  file: string;
  line: number;
  endLine?: number;
  level: string;
  code: number;
  message: string;
}

const SHELLCHECK_LEVEL: Record<string, [Severity, number]> = {
  error: ["medium", 0.7],
  warning: ["low", 0.6],
  info: ["info", 0.5],
  style: ["info", 0.4],
};

/**
 * Codes that are about how ShellCheck was run, not about the script: SC1071 (a zsh script: not
 * supported), SC1091 (a sourced file it was not allowed to follow), SC2148 (no shebang: the dialect
 * of files like .bashrc comes from their name).
 */
const SHELLCHECK_NOT_ABOUT_THE_CODE = new Set([1071, 1091, 2148]);

export function parseShellCheckOutput(root: string, stdout: string): Finding[] {
  const report = JSON.parse(stdout || "{}") as { comments?: ShellCheckComment[] };
  return (report.comments ?? [])
    .filter((c) => !SHELLCHECK_NOT_ABOUT_THE_CODE.has(c.code))
    .map((c) => {
      const [severity, confidence] = SHELLCHECK_LEVEL[c.level] ?? ["info", 0.4];
      return {
        tool: "shellcheck",
        ruleId: `SC${c.code}`,
        severity,
        confidence,
        file: relative(root, c.file),
        startLine: c.line,
        endLine: Math.max(c.line, c.endLine ?? c.line),
        message: c.message,
      };
    });
}

// ---- runner ----------------------------------------------------------------------------------------

interface ToolSpec {
  tool: "ruff" | "bandit" | "shellcheck";
  /** The files it reads ("Python files", "shell scripts") and which those are. */
  kind: string;
  picks: (file: { path: string; language?: string }) => boolean;
  args: (files: string[]) => string[];
  /** Exit codes that still mean "here is the report". */
  ok: (code: number | null) => boolean;
  parse: (root: string, stdout: string) => Finding[];
}

const TOOLS: ToolSpec[] = [
  {
    tool: "ruff",
    kind: "Python files",
    picks: isPython,
    // --extend-select S adds the flake8-bandit security rules to whatever the project selects.
    args: (files) => [
      "check",
      "--output-format=json",
      "--exit-zero",
      "--no-cache",
      "--extend-select",
      "S",
      "--",
      ...files,
    ],
    ok: (code) => code === 0,
    parse: parseRuffOutput,
  },
  {
    tool: "bandit",
    kind: "Python files",
    picks: isPython,
    args: (files) => ["-f", "json", "-q", "--", ...files],
    ok: (code) => code === 0 || code === 1, // 1 = issues found
    parse: parseBanditOutput,
  },
  {
    tool: "shellcheck",
    kind: "shell scripts",
    picks: isShellCheckable,
    // --norc: no .shellcheckrc from the project (it could turn on following sourced files, which may
    // lie outside the snapshot); without -x, `source` is not followed. Style-level notes are left out.
    args: (files) => ["-f", "json1", "--norc", "-S", "info", "--", ...files],
    ok: (code) => code === 0 || code === 1, // 1 = issues found
    parse: parseShellCheckOutput,
  },
];

function isPython(f: { path: string }): boolean {
  return /\.pyi?$/.test(f.path);
}

/** sh, bash, dash and ksh scripts (by extension, or by shebang as the walk detected it); not zsh. */
function isShellCheckable(f: { path: string; language?: string }): boolean {
  const name = f.path.slice(f.path.lastIndexOf("/") + 1);
  if (/(?:^\.?zsh|\.zsh$)/.test(name)) return false;
  return f.language === "shell" || /\.(?:sh|bash|dash|ksh)$/.test(name);
}

export async function runExternalTools(options: ExternalOptions): Promise<{ findings: Finding[]; runs: ToolRun[] }> {
  const files = options.files.map((f) => (typeof f === "string" ? { path: f } : f));
  const findings: Finding[] = [];
  const runs: ToolRun[] = [];
  for (const spec of TOOLS) {
    const started = performance.now();
    const run: ToolRun = { tool: spec.tool, status: "skipped", detail: "", files: 0, findings: 0, durationMs: 0 };
    runs.push(run);
    const bin = findExecutable(spec.tool, options.envPath);
    if (!bin) {
      run.detail = `${spec.tool} is not on PATH`;
      continue;
    }
    const mine = files.filter(spec.picks).map((f) => f.path);
    if (mine.length === 0) {
      run.detail = `no ${spec.kind}`;
      continue;
    }
    try {
      const found: Finding[] = [];
      for (let i = 0; i < mine.length; i += CHUNK) {
        const chunk = mine.slice(i, i + CHUNK);
        const out = await runProcess(bin, spec.args(chunk), options.root, options.timeoutMs ?? 120_000);
        if (!spec.ok(out.code))
          throw new Error(`exit ${out.code}: ${out.stderr.trim().split("\n").pop() ?? ""}`.slice(0, 300));
        found.push(...spec.parse(options.root, out.stdout));
      }
      findings.push(...found);
      Object.assign(run, { status: "ran", detail: bin, files: mine.length, findings: found.length });
    } catch (err) {
      Object.assign(run, {
        status: "failed",
        detail: (err instanceof Error ? err.message : String(err)).slice(0, 400),
      });
    }
    run.durationMs = Math.round(performance.now() - started);
  }
  return { findings, runs };
}
