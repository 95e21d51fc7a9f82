/**
 * `argus review <folder|zip|git-url>` for CI pipelines: imports the code as the web app does, runs
 * the same review (run.ts) and writes Markdown, SARIF or JSON. No database and no server needed.
 *
 * Exit codes: 0 no finding at or above --fail-on (or no --fail-on); 1 such findings exist;
 * 2 usage errors (bad flags, unreadable prompt file, code that cannot be imported); 3 the review
 * itself failed (model errors, budget spent before any report) — so a CI can tell them apart.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { getConfig } from "../config.ts";
import { DomainError } from "../errors.ts";
import { clientOptionsFromSettings, PROVIDER_INFO, providerSchema } from "../llm/index.ts";
import { loadBuiltinPrompts } from "../prompts/builtins.ts";
import {
  executeReview,
  isExportFormat,
  renderExport,
  reviewBudgetSchema,
  reviewSettingsSchema,
  type ReviewScope,
} from "../review/index.ts";
import { atLeast, severitySchema } from "../shared/findings.ts";
import type { StaticInput } from "../agent/index.ts";
import { OPERATOR_GIT_POLICY } from "../codebase/ingest/index.ts";
import { runImport } from "../snapshots/import.ts";
import { snapshotDirs } from "../snapshots/storage.ts";
import { reviewableFiles } from "../codebase/symbols/index.ts";
import { sourceFor } from "./ingest.ts";
import { UsageError } from "./usage.ts";

export const REVIEW_HELP = `Usage: argus review <folder | archive.zip | git-url> [options]

Reviews code the way the web app does and writes the report.
  --engine static|agent     static analysis (no LLM, default) or the tool-using agent
  --provider p --model m    for the agent: anthropic | openai | openai-compatible (default: LLM_PROVIDER)
  --prompt file             review prompt for the agent (default: the built-in general review)
  --diff base..head         review only the changes between two refs (git sources; fetch enough history with --depth)
  --paths a,b               review only these files, folders or globs
  --ref r --depth n         git branch/tag/commit to check out, history depth
  --format md|sarif|json    output format (default md)
  --out file                write the report to a file (default: standard output)
  --fail-on severity        exit 1 when a finding at or above it exists (critical|high|medium|low|info)
  --min-confidence x        drop findings below this confidence (0–1)
  --max-iterations n        agent iterations (default 100); --max-cost usd: cost budget
  --no-verify               skip the agent's verification pass
Exit codes: 0 ok, 1 findings at or above --fail-on, 2 usage error, 3 the review failed.`;

function number(
  value: string | undefined,
  flag: string,
  min: number,
  max: number,
  integer = false,
): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
    throw new UsageError(
      `${flag} must be a ${integer ? "whole number" : "number"} from ${min} to ${max}, not "${value}".`,
    );
  }
  return n;
}

function scopeFrom(diff: string | undefined, paths: string | undefined): ReviewScope {
  if (diff && paths) throw new UsageError("Use either --diff or --paths, not both.");
  if (diff) {
    const m = /^([^.\s][^\s]*?)\.\.([^.\s][^\s]*)$/.exec(diff);
    if (!m) throw new UsageError(`--diff takes base..head (for example main..HEAD), not "${diff}".`);
    return { kind: "diff", base: m[1]!, head: m[2]! };
  }
  if (paths)
    return {
      kind: "paths",
      paths: paths
        .split(",")
        .map((p) => p.trim())
        .filter(Boolean),
    };
  return { kind: "project" };
}

type AgentOptions = NonNullable<Parameters<typeof executeReview>[0]["agent"]>;

/** The agent engine's model and prompt from the flags and the environment's provider settings. */
async function agentFor(
  values: { provider?: string; model?: string; prompt?: string },
  settings: ReturnType<typeof getConfig>["llm"],
): Promise<AgentOptions> {
  const provider = values.provider ? providerSchema.safeParse(values.provider) : undefined;
  if (provider && !provider.success)
    throw new UsageError(`--provider is anthropic, openai or openai-compatible, not "${values.provider}".`);
  const llm = clientOptionsFromSettings(settings, provider?.data);
  if (values.model) llm.model = values.model;
  if (!llm.apiKey && llm.provider !== "openai-compatible")
    throw new UsageError(
      `No API key for ${PROVIDER_INFO[llm.provider].label}: set it in the environment (see .env.example), or use --engine static.`,
    );
  const prompt = values.prompt
    ? await readFile(values.prompt, "utf8").catch(() => {
        throw new UsageError(`Cannot read the prompt file "${values.prompt}".`);
      })
    : (loadBuiltinPrompts().find((p) => p.isDefault) ?? loadBuiltinPrompts()[0]!).content;
  return { llm, prompt };
}

/** "3 findings (1 high, 2 low), score 72": the line the review ends with on stderr. */
function summaryLine(report: { findings: { severity: string }[]; overallScore: number }): string {
  const counts = report.findings.reduce<Record<string, number>>(
    (acc, f) => ({ ...acc, [f.severity]: (acc[f.severity] ?? 0) + 1 }),
    {},
  );
  const breakdown =
    Object.entries(counts)
      .map(([k, v]) => `${v} ${k}`)
      .join(", ") || "none";
  const n = report.findings.length;
  return `${n} finding${n === 1 ? "" : "s"} (${breakdown}), score ${report.overallScore}`;
}

export async function runReviewCli(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        engine: { type: "string", default: "static" },
        provider: { type: "string" },
        model: { type: "string" },
        prompt: { type: "string" },
        diff: { type: "string" },
        paths: { type: "string" },
        ref: { type: "string" },
        depth: { type: "string" },
        format: { type: "string", default: "md" },
        out: { type: "string" },
        "fail-on": { type: "string" },
        "min-confidence": { type: "string" },
        "max-iterations": { type: "string" },
        "max-cost": { type: "string" },
        "no-verify": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (err) {
    console.error(`argus review: ${(err as Error).message}\n\n${REVIEW_HELP}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(REVIEW_HELP);
    return 0;
  }

  let base: string | undefined;
  try {
    const target = positionals[0];
    if (!target || positionals.length > 1) throw new UsageError("Give exactly one folder, zip file or git URL.");
    if (values.engine !== "static" && values.engine !== "agent")
      throw new UsageError(`--engine is static or agent, not "${values.engine}".`);
    if (!isExportFormat(values.format ?? null))
      throw new UsageError(`--format is md, sarif or json, not "${values.format}".`);
    const failOn = values["fail-on"] === undefined ? undefined : severitySchema.safeParse(values["fail-on"]);
    if (failOn && !failOn.success)
      throw new UsageError(`--fail-on is one of critical, high, medium, low, info — not "${values["fail-on"]}".`);
    const scope = scopeFrom(values.diff, values.paths);
    const budget = reviewBudgetSchema.parse({
      maxIterations: number(values["max-iterations"], "--max-iterations", 1, 500, true) ?? 100,
      maxCostUsd: number(values["max-cost"], "--max-cost", 0.0001, 10_000),
    });
    const settings = reviewSettingsSchema.parse({
      verify: !values["no-verify"],
      minConfidence: number(values["min-confidence"], "--min-confidence", 0, 1) ?? 0,
    });

    const config = getConfig();
    const agent = values.engine === "agent" ? await agentFor(values, config.llm) : undefined;

    base = await mkdtemp(path.join(os.tmpdir(), "argus-review-"));
    const dirs = snapshotDirs(base, "cli", "snapshot");
    const progress = (stage: string, fraction: number) =>
      process.stderr.write(`\r${stage} ${Math.round(fraction * 100)}%   `);
    const imported = await runImport(
      await sourceFor(target, { ref: values.ref, depth: number(values.depth, "--depth", 1, 10_000, true) }),
      dirs,
      progress,
      {
        limits: config.ingestLimits,
        projectEslintConfig: config.projectEslintConfig,
        // The operator typed the URL on their own machine: any host, their own ssh keys.
        git: OPERATOR_GIT_POLICY,
      },
    ).catch((err: unknown) => {
      throw err instanceof DomainError ? new UsageError(err.message) : err;
    });
    process.stderr.write("\r");
    const files = reviewableFiles(dirs.symbols);

    const controller = new AbortController();
    process.once("SIGINT", () => controller.abort(new Error("Interrupted.")));
    const started = new Date();
    const { report, usage } = await executeReview({
      engine: values.engine,
      root: dirs.src,
      files,
      languages: imported.summary.languages,
      symbolsPath: dirs.symbols,
      staticFindings: imported.findings as StaticInput[],
      scope,
      settings,
      budget,
      dismissed: [],
      agent,
      signal: controller.signal,
      emit: (e) => {
        if (e.type === "tool_call") process.stderr.write(`· ${(e as { name?: string }).name ?? "tool"}\n`);
      },
    });
    const rendered = renderExport(values.format as "md" | "sarif" | "json", {
      review: {
        uid: crypto.randomUUID(),
        projectUid: "",
        projectName: path.basename(path.resolve(target)),
        snapshotUid: null,
        engine: values.engine,
        status: "completed",
        statusReason: null,
        scope,
        promptName: values.engine === "agent" ? (values.prompt ?? "General code review") : null,
        provider: agent?.llm.provider ?? null,
        model: agent?.llm.model ?? null,
        usage,
        settings,
        createdAt: started,
        startedAt: started,
        finishedAt: new Date(),
      },
      report,
      dismissed: new Set(),
    });
    if (values.out) await writeFile(values.out, rendered.body);
    else process.stdout.write(rendered.body);
    process.stderr.write(`${summaryLine(report)}\n`);
    if (failOn?.success && report.findings.some((f) => atLeast(f.severity, failOn.data))) {
      process.stderr.write(`failing: findings at or above ${failOn.data}\n`);
      return 1;
    }
    return 0;
  } catch (err) {
    // A scope that matches nothing or a ref that does not exist is the caller's to fix: usage (2).
    if (base) process.stderr.write("\n"); // end the progress line
    if (err instanceof UsageError || (err instanceof DomainError && err.kind === "invalid")) {
      console.error(`argus review: ${err.message}\n\nRun argus review --help for the options.`);
      return 2;
    }
    console.error(`argus review: the review failed: ${err instanceof Error ? err.message : String(err)}`);
    return 3;
  } finally {
    if (base) await rm(base, { recursive: true, force: true });
  }
}
