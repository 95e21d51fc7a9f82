/**
 * Worker-thread side of eslint.ts: runs ESLint once and posts plain results back. Running it in a
 * worker lets the caller enforce a timeout (terminate) and contain a project config that loops,
 * exits or eats memory: loading eslint.config.* executes the project's code.
 */
import path from "node:path";
import { parentPort, workerData } from "node:worker_threads";
import { ESLint } from "eslint";
import { builtinConfig } from "./config.ts";

export interface EslintJob {
  root: string;
  files: string[];
  /** Project flat config (relative to root) to try first, or null for the built-in config. */
  projectConfig: string | null;
}

export interface EslintMessage {
  ruleId: string | null;
  severity: number;
  message: string;
  line: number;
  endLine: number | null;
  fatal: boolean;
}

export interface EslintOutcome {
  config: "project" | "builtin";
  /** Why the project config was not used, when it failed. */
  fallback: string | null;
  results: { file: string; messages: EslintMessage[] }[];
}

export type EslintWorkerMessage = { type: "done"; outcome: EslintOutcome } | { type: "fatal"; message: string };

export async function lint(job: EslintJob): Promise<EslintOutcome> {
  const common = { cwd: job.root, errorOnUnmatchedPattern: false, warnIgnored: false, globInputPaths: false } as const;
  let fallback: string | null = null;
  if (job.projectConfig) {
    try {
      // The project's own rules and its inline directives, as its developers run it.
      const eslint = new ESLint({ ...common, overrideConfigFile: path.join(job.root, job.projectConfig) });
      return { config: "project", fallback: null, results: simplify(job.root, await eslint.lintFiles(job.files)) };
    } catch (err) {
      fallback = `${job.projectConfig} could not be used (${(err instanceof Error ? err.message : String(err)).split("\n")[0]!.slice(0, 300)})`;
    }
  }
  // Built-in: `true` stops ESLint looking for a config up the tree (it would find the server's own).
  // Inline directives are off: code under review does not get to switch our checks off.
  const eslint = new ESLint({
    ...common,
    overrideConfigFile: true,
    overrideConfig: builtinConfig(),
    allowInlineConfig: false,
  });
  return { config: "builtin", fallback, results: simplify(job.root, await eslint.lintFiles(job.files)) };
}

function simplify(root: string, results: ESLint.LintResult[]): EslintOutcome["results"] {
  return results
    .filter((r) => r.messages.length > 0)
    .map((r) => ({
      file: path.relative(root, r.filePath).split(path.sep).join("/"),
      messages: r.messages.map((m) => ({
        ruleId: m.ruleId,
        severity: m.severity,
        message: m.message,
        line: m.line ?? 1,
        endLine: m.endLine ?? null,
        fatal: m.fatal === true,
      })),
    }));
}

const port = parentPort;
if (port && (workerData as { eslintJob?: EslintJob } | null)?.eslintJob) {
  lint((workerData as { eslintJob: EslintJob }).eslintJob).then(
    (outcome) => port.postMessage({ type: "done", outcome } satisfies EslintWorkerMessage),
    (err: unknown) =>
      port.postMessage({
        type: "fatal",
        message: err instanceof Error ? err.message : String(err),
      } satisfies EslintWorkerMessage),
  );
}
