/**
 * ESLint on the JS/TS files of a snapshot, best-effort: the project's own flat config when it has one
 * (falling back to the built-in security config, with the reason, if it cannot be loaded), in a
 * worker thread under a time limit. Never throws: failures come back as a ToolRun.
 */
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { startTsWorker } from "../ts-worker.ts";
import type { Finding, Severity, ToolRun } from "../types.ts";
import { LINTABLE } from "./config.ts";
import { lint, type EslintJob, type EslintOutcome, type EslintWorkerMessage } from "./worker.ts";

export interface EslintOptions {
  root: string;
  /** Snapshot files (posix, relative); non-JS/TS ones are ignored. */
  files: string[];
  /**
   * Load the project's eslint.config.* if present. That executes the project's JavaScript on this
   * server: turn it off for sources you do not trust. Default true.
   */
  useProjectConfig?: boolean;
  timeoutMs?: number;
  /** Lint at most this many files (largest projects: the rest are counted as skipped). */
  maxFiles?: number;
  maxFileBytes?: number;
  /** Run in this thread (no timeout enforcement); for tests and tools. */
  inProcess?: boolean;
}

export const PROJECT_CONFIG_NAMES = [
  "eslint.config.js",
  "eslint.config.mjs",
  "eslint.config.cjs",
  "eslint.config.ts",
  "eslint.config.mts",
  "eslint.config.cts",
];

/** eslint-plugin-security rules: how bad a hit is, and how often it is real. */
const SECURITY_RULES: Record<string, [Severity, number]> = {
  "detect-eval-with-expression": ["high", 0.6],
  "detect-child-process": ["medium", 0.4],
  "detect-non-literal-fs-filename": ["medium", 0.3],
  "detect-non-literal-require": ["medium", 0.4],
  "detect-non-literal-regexp": ["low", 0.3],
  "detect-unsafe-regex": ["medium", 0.5],
  "detect-pseudoRandomBytes": ["medium", 0.6],
  "detect-possible-timing-attacks": ["low", 0.3],
  "detect-buffer-noassert": ["low", 0.5],
  "detect-new-buffer": ["low", 0.5],
  "detect-no-csrf-before-method-override": ["medium", 0.6],
  "detect-disable-mustache-escape": ["medium", 0.6],
  "detect-bidi-characters": ["high", 0.8],
  "detect-invisible-characters": ["medium", 0.5],
  "detect-object-injection": ["low", 0.2],
};

export async function runEslint(options: EslintOptions): Promise<{ findings: Finding[]; run: ToolRun }> {
  const started = performance.now();
  const maxFiles = options.maxFiles ?? 3000;
  const maxBytes = options.maxFileBytes ?? 1024 * 1024;
  const candidates = options.files.filter(
    (f) => LINTABLE.test(f) && !PROJECT_CONFIG_NAMES.includes(f) && !/\.min\.[cm]?js$/.test(f),
  );
  const files = candidates.filter((f) => {
    try {
      return statSync(path.join(options.root, f)).size <= maxBytes;
    } catch {
      return false;
    }
  });
  const skippedBig = candidates.length - files.length;
  const selected = files.slice(0, maxFiles);
  const run: ToolRun = {
    tool: "eslint",
    status: "skipped",
    detail: "",
    files: selected.length,
    findings: 0,
    durationMs: 0,
  };
  if (selected.length === 0) {
    run.detail = "no JavaScript or TypeScript files";
    return { findings: [], run };
  }
  const projectConfig =
    options.useProjectConfig === false
      ? null
      : (PROJECT_CONFIG_NAMES.find((n) => existsSync(path.join(options.root, n))) ?? null);
  const job: EslintJob = { root: options.root, files: selected, projectConfig };
  try {
    const outcome = options.inProcess ? await lint(job) : await inWorker(job, options.timeoutMs ?? 120_000);
    const findings: Finding[] = [];
    let parseErrors = 0;
    for (const result of outcome.results) {
      for (const m of result.messages) {
        if (m.fatal || !m.ruleId) {
          parseErrors++;
          continue;
        }
        const [severity, confidence] = severityOf(m.ruleId, m.severity);
        findings.push({
          tool: "eslint",
          ruleId: m.ruleId,
          severity,
          confidence,
          file: result.file,
          startLine: m.line,
          endLine: Math.max(m.line, m.endLine ?? m.line),
          message: m.message,
        });
      }
    }
    const notes = [
      outcome.config === "project"
        ? `project config ${projectConfig}`
        : "built-in security config (typescript-eslint parser + eslint-plugin-security)",
      outcome.fallback ? `fell back: ${outcome.fallback}` : null,
      parseErrors ? `${parseErrors} file(s) could not be parsed` : null,
      files.length > maxFiles ? `${files.length - maxFiles} file(s) over the ${maxFiles}-file limit not linted` : null,
      skippedBig ? `${skippedBig} file(s) over ${Math.round(maxBytes / 1024)} KiB not linted` : null,
    ].filter(Boolean);
    Object.assign(run, {
      status: "ran",
      detail: notes.join("; "),
      findings: findings.length,
      durationMs: Math.round(performance.now() - started),
    });
    return { findings, run };
  } catch (err) {
    Object.assign(run, {
      status: "failed",
      detail: (err instanceof Error ? err.message : String(err)).split("\n")[0]!.slice(0, 400),
      durationMs: Math.round(performance.now() - started),
    });
    return { findings: [], run };
  }
}

function severityOf(ruleId: string, eslintSeverity: number): [Severity, number] {
  const known = ruleId.startsWith("security/") ? SECURITY_RULES[ruleId.slice(9)] : undefined;
  if (known) return known;
  // A project's own rules: its errors are worth a look, its warnings less so; mostly not security.
  return eslintSeverity >= 2 ? ["low", 0.5] : ["info", 0.5];
}

function inWorker(job: EslintJob, timeoutMs: number): Promise<EslintOutcome> {
  return new Promise((resolve, reject) => {
    const worker = startTsWorker(
      new URL("./worker.ts", import.meta.url),
      { eslintJob: job },
      { maxOldGenerationSizeMb: 2048 },
    );
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(new Error(`ESLint timed out after ${Math.round(timeoutMs / 1000)} s`));
    }, timeoutMs);
    const settle = (fn: () => void) => {
      clearTimeout(timer);
      void worker.terminate();
      fn();
    };
    worker.on("message", (message: EslintWorkerMessage) =>
      settle(() => (message.type === "done" ? resolve(message.outcome) : reject(new Error(message.message)))),
    );
    worker.on("error", (err) => settle(() => reject(err)));
    worker.on("exit", (code) => settle(() => reject(new Error(`ESLint worker exited with code ${code}`))));
  });
}
