/**
 * Runs one review over an imported snapshot and returns its report — without the database, so the
 * web app's job (job.ts) and `argus review` (cli/review.ts) share every step: scope, engine, the
 * report checks and noise control. Every file read goes through the Sandbox.
 */
import { invalid } from "../errors.ts";
import type { LlmClientOptions } from "../llm/index.ts";
import {
  type AgentEvent,
  type AgentRunSummary,
  type BeforeTurn,
  createReviewTools,
  runToolCall,
  Sandbox,
  type StaticInput,
  type ToolContext,
} from "../agent/index.ts";
import { buildReport } from "./report/build.ts";
import { createLlmClient } from "../llm/index.ts";
import type { StaticSummary } from "./reviewer/first-message.ts";
import { ReviewAgentError, reviewWithAgent } from "./reviewer/review.ts";
import { rollupByFile } from "./report/rollup.ts";
import { recomputeScores } from "./report/scores.ts";
import type { Dismissed } from "./report/project-memory.ts";
import {
  severityRank,
  type Report,
  type ReviewBudget,
  type ReviewScope,
  type ReviewSettings,
  type Severity,
} from "./report/schema.ts";
import { inScope, resolveScope, type ResolvedScope } from "./scope.ts";
import { STATIC_ENGINE_LABEL, staticFindingsToReport } from "./static-engine.ts";

export interface ExecuteReviewInput {
  engine: "static" | "agent";
  /** The snapshot's src/ directory. */
  root: string;
  /** Indexed files of the snapshot (relative paths), i.e. what the review may look at. */
  files: string[];
  languages: Record<string, { files: number; lines: number }>;
  symbolsPath?: string;
  staticFindings: StaticInput[];
  scope: ReviewScope;
  settings: ReviewSettings;
  budget: ReviewBudget;
  /** What the project marked false positive (report/project-memory.ts). */
  dismissed: Iterable<Dismissed>;
  agent?: { llm: LlmClientOptions; prompt: string; verifyLlm?: LlmClientOptions };
  searchCode?: ToolContext["searchCode"];
  emit: (event: AgentEvent | { type: "progress"; fraction: number; stage: string }) => void;
  signal?: AbortSignal;
  /** Steering of the agent between iterations (hints, pause, stop); see agent/review.ts. */
  beforeTurn?: BeforeTurn;
}

export interface ExecuteReviewResult {
  report: Report;
  usage: { inputTokens: number; outputTokens: number; costUsd?: number; iterations?: number } | null;
}

export async function executeReview(input: ExecuteReviewInput): Promise<ExecuteReviewResult> {
  const sandbox = new Sandbox(input.root);
  const readFile = async (file: string) => {
    try {
      return sandbox.readFile(file).content;
    } catch {
      return null;
    }
  };
  const scope = await resolveScope(input.scope, { root: input.root, files: input.files });
  const scopedStatic = inScopeStatic(input.staticFindings, scope);
  if (input.engine === "static")
    return { report: await staticReview(input, scope, scopedStatic, readFile), usage: null };
  return agentReview(input, scope, scopedStatic, readFile);
}

async function agentReview(
  input: ExecuteReviewInput,
  scope: ResolvedScope,
  findings: StaticInput[],
  readFile: (f: string) => Promise<string | null>,
): Promise<ExecuteReviewResult> {
  if (!input.agent)
    throw invalid("The agent engine needs a model: pick a provider connection, or run the static engine.");
  let toolsRun = 0;
  const emit: ExecuteReviewInput["emit"] = (e) => {
    if (e.type === "tool_result") toolsRun++;
    input.emit(e);
  };
  const tools = createReviewTools({
    root: input.root,
    symbolsPath: input.symbolsPath,
    staticFindings: async () => input.staticFindings,
    searchCode: input.searchCode,
  });
  let engineLabel = input.agent.llm.provider as string;
  try {
    const llm = createLlmClient(input.agent.llm);
    engineLabel = `${input.agent.llm.provider} / ${llm.model}`;
    const result = await reviewWithAgent({
      llm,
      verifyLlm: input.agent.verifyLlm ? createLlmClient(input.agent.verifyLlm) : undefined,
      system: input.agent.prompt,
      context: {
        scope: input.scope,
        files: scope.files,
        languages: Object.fromEntries(Object.entries(input.languages).map(([lang, s]) => [lang, s.files])),
        staticSummary: staticSummary(findings),
        diffFiles: scope.hunks
          ? [...scope.hunks].map(([path, ranges]) => ({ path, hunks: ranges.map(([start, end]) => ({ start, end })) }))
          : undefined,
      },
      tools,
      runToolCall,
      readFile,
      budget: input.budget,
      settings: input.settings,
      dismissed: input.dismissed,
      engineLabel,
      signal: input.signal,
      onEvent: emit,
      ...(input.beforeTurn ? { beforeTurn: input.beforeTurn } : {}),
    });
    // The agent may read any file for context, but a diff or path review reports on its scope only.
    const files = new Set(scope.files);
    const kept = result.report.findings.filter((f) => inScope(scope, f, files));
    const report =
      kept.length === result.report.findings.length
        ? result.report
        : {
            ...result.report,
            ...recomputeScores(result.report, kept),
            findings: kept,
            files: rollupByFile(kept),
            notes: [
              ...result.report.notes,
              `${result.report.findings.length - kept.length} finding(s) outside the review's scope were left out.`,
            ],
          };
    return {
      report,
      usage: {
        inputTokens: result.usage.inputTokens,
        outputTokens: result.usage.outputTokens,
        costUsd: result.costUsd,
        iterations: result.iterations,
      },
    };
  } catch (e) {
    if (!(e instanceof ReviewAgentError) || e.summary.stopReason !== "stopped") throw e;
    return partialReport(input, scope, findings, readFile, { ...e.summary, toolsRun, engineLabel });
  } finally {
    tools.close();
  }
}

/**
 * A review stopped before the agent reported: what it has instead of a model answer (no model request
 * after a Stop) — the static findings in scope, with notes on who stopped it and how far it got.
 */
async function partialReport(
  input: ExecuteReviewInput,
  scope: ResolvedScope,
  findings: StaticInput[],
  readFile: (f: string) => Promise<string | null>,
  agent: AgentRunSummary & { toolsRun: number; engineLabel: string },
): Promise<ExecuteReviewResult> {
  const { toolsRun } = agent;
  const maxIterations = input.budget.maxIterations;
  const progress = `The agent was stopped after ${agent.iterations} of ${maxIterations} iterations (${toolsRun} tool call${toolsRun === 1 ? "" : "s"} run), before it reported.`;
  const report = await staticReview(input, scope, findings, readFile, [
    ...agent.notes,
    `${progress} This partial report lists the static analysis findings in the review's scope.`,
  ]);
  return {
    report: { ...report, engine: "agent", engineLabel: `${agent.engineLabel} (stopped)` },
    usage: {
      inputTokens: agent.usage.inputTokens,
      outputTokens: agent.usage.outputTokens,
      costUsd: agent.costUsd,
      iterations: agent.iterations,
    },
  };
}

function staticSummary(findings: StaticInput[]): StaticSummary {
  const byTool: Record<string, number> = {};
  const bySeverity: Partial<Record<Severity, number>> = {};
  for (const f of findings) {
    byTool[f.tool] = (byTool[f.tool] ?? 0) + 1;
    bySeverity[f.severity as Severity] = (bySeverity[f.severity as Severity] ?? 0) + 1;
  }
  const top = [...findings]
    .sort(
      (a, b) =>
        severityRank(a.severity as Severity) - severityRank(b.severity as Severity) || b.confidence - a.confidence,
    )
    .slice(0, 15)
    .map((f) => ({ file: f.file, line: f.startLine, severity: f.severity, ruleId: f.ruleId, message: f.message }));
  return { byTool, bySeverity, top };
}

function inScopeStatic(findings: StaticInput[], scope: ResolvedScope): StaticInput[] {
  const files = new Set(scope.files);
  return findings.filter((f) => inScope(scope, f, files));
}

async function staticReview(
  input: ExecuteReviewInput,
  scope: ResolvedScope,
  findings: StaticInput[],
  readFile: (f: string) => Promise<string | null>,
  notes?: string[],
): Promise<Report> {
  input.emit({ type: "progress", fraction: 0.2, stage: "checking static findings" });
  const mapped = await staticFindingsToReport(findings, async (file) => (await readFile(file))?.split(/\r?\n/) ?? null);
  // No scores given: buildReport computes all of them from the kept findings (report/scores.ts).
  return buildReport({
    model: {
      summary: `${mapped.summary} Scope: ${scope.description}.`,
      findings: mapped.findings,
    },
    readFile,
    settings: { ...input.settings, verify: false },
    dismissed: input.dismissed,
    engine: "static",
    engineLabel: STATIC_ENGINE_LABEL,
    ...(notes ? { notes } : {}),
  });
}
