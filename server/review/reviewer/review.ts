/**
 * What the review job calls (chat turns are server/agent/chat.ts). `reviewWithAgent` composes: the first message →
 * the agent loop (REPORT, repairs, self-critique, forced final pass) → location checks, fingerprints,
 * dedupe, dismissed, thresholds (report/build.ts) → the verification pass → the stored Report. Events
 * go to `onEvent` throughout; `done` comes once, last. When no report can be produced (cancelled, the
 * provider failed, the budget ran out first, the REPORT stayed invalid) it throws ReviewAgentError
 * carrying the stop reason and the usage spent, so the job can fail or cancel the review with a reason.
 */
import {
  type AgentEvent,
  type AgentRunSummary,
  type BeforeTurn,
  type EventSink,
  type ReviewTool,
  type RunToolCall,
  isStopNow,
} from "../../agent/index.ts";
import { type Budget, createBudget } from "../../llm/index.ts";
import type { LlmClient } from "../../llm/index.ts";
import type { Usage } from "../../llm/index.ts";
import { type ReadFile, buildReport } from "../report/build.ts";
import type { Dismissed } from "../report/project-memory.ts";
import {
  type Report,
  type ReviewBudget,
  type ReviewSettings,
  reviewBudgetSchema,
  reviewSettingsSchema,
} from "../report/schema.ts";
import { type FirstMessageInput, buildFirstMessage } from "./first-message.ts";
import { runAgent } from "./run-agent.ts";
import { SALVAGED_NOTE, salvageReport } from "./salvage.ts";
import { verifyFindings } from "./verify.ts";

/** Share of the budget the exploring loop leaves for verification when verification is on. */
const VERIFY_SHARE = 0.2;

export class ReviewAgentError extends Error {
  constructor(
    message: string,
    readonly summary: AgentRunSummary,
  ) {
    super(message);
    this.name = "ReviewAgentError";
  }

  /** The loop's stop reason: a provider's error, the budget, an unusable REPORT (server/errors.ts isUserFacing). */
  get userFacing(): boolean {
    return true;
  }
}

export interface ReviewWithAgentOptions {
  llm: LlmClient;
  /** A different model for the verification pass (settings.verifyModel); default: llm. */
  verifyLlm?: LlmClient;
  /** The review's snapshotted prompt. */
  system: string;
  context: FirstMessageInput;
  tools: readonly ReviewTool[];
  /** The Sandbox's read: used to check every finding's lines. */
  readFile: ReadFile;
  budget?: Partial<ReviewBudget>;
  settings?: Partial<ReviewSettings>;
  /** The project's findings marked false positive (report/project-memory.ts). */
  dismissed?: Iterable<Dismissed>;
  /** Default "<provider> / <model>". */
  engineLabel?: string;
  signal?: AbortSignal;
  onEvent?: EventSink;
  runToolCall?: RunToolCall;
  critiqueRounds?: number;
  /**
   * Steering (teammates' hints, pause, stop), awaited between iterations of the review and of each
   * verification check. A stop ends the exploration with a report of what was found so far, and the
   * verification pass is skipped (it would spend more model requests after a stop).
   */
  beforeTurn?: BeforeTurn;
}

export interface ReviewWithAgentResult extends AgentRunSummary {
  report: Report;
}

export async function reviewWithAgent(o: ReviewWithAgentOptions): Promise<ReviewWithAgentResult> {
  const limits = reviewBudgetSchema.parse(o.budget ?? {});
  const settings = reviewSettingsSchema.parse(o.settings ?? {});
  const budget = createBudget({ maxTokens: limits.maxTokens, maxCostUsd: limits.maxCostUsd });
  const verifying = settings.verify;
  const emit = (e: AgentEvent) => {
    try {
      o.onEvent?.(e);
    } catch {
      // see loop.ts: a failing listener does not end the review
    }
  };
  const inner: EventSink = (e) => e.type !== "done" && emit(e);
  // The loop announces an unusable REPORT as an error: held back until the salvage below has had
  // its say (the loop emits nothing but `done` after it, so the order stays the same).
  const held: AgentEvent[] = [];
  const loopSink: EventSink = (e) => {
    if (e.type === "error") held.push(e);
    else inner(e);
  };

  const agent = await runAgent({
    llm: o.llm,
    mode: "review",
    system: o.system,
    firstMessage: buildFirstMessage(o.context),
    tools: o.tools,
    budget,
    maxIterations: limits.maxIterations,
    signal: o.signal,
    onEvent: loopSink,
    ...(o.runToolCall ? { runToolCall: o.runToolCall } : {}),
    ...(o.critiqueRounds !== undefined ? { critiqueRounds: o.critiqueRounds } : {}),
    ...(verifying ? { reserve: reserveFor(budget) } : {}),
    ...(o.beforeTurn ? { beforeTurn: o.beforeTurn } : {}),
  });
  const stopped = agent.stopReason === "stopped";
  const summary: AgentRunSummary = {
    stopReason: agent.stopReason,
    iterations: agent.iterations,
    usage: agent.usage,
    costUsd: agent.costUsd,
    notes: [...agent.notes],
  };
  let modelReport = agent.report;
  if (!modelReport && agent.stopReason === "invalid_report") {
    modelReport = salvageReport(agent.messages);
    if (modelReport) {
      held.length = 0;
      summary.stopReason = "end_turn";
      summary.notes.push(SALVAGED_NOTE);
    }
  }
  held.forEach(emit);
  if (!modelReport) {
    emit({ type: "done", stopReason: agent.stopReason, iterations: agent.iterations, notes: summary.notes });
    throw new ReviewAgentError(
      agent.stopReason === "cancelled"
        ? "The review was cancelled."
        : agent.stopReason === "stopped"
          ? "The review was stopped before the agent reported."
          : (agent.error ?? `The agent stopped (${agent.stopReason}) without a report.`),
      summary,
    );
  }

  emit({
    type: "status",
    phase: "finalizing",
    message: "checking findings against the code",
    iteration: agent.iterations,
  });
  const report = await buildReport({
    model: modelReport,
    readFile: o.readFile,
    settings: stopped ? { ...settings, verify: false } : settings,
    ...(o.dismissed ? { dismissed: o.dismissed } : {}),
    engineLabel: o.engineLabel ?? `${o.llm.provider} / ${o.llm.model}`,
    notes: summary.notes,
    verify: async (findings) => {
      const v = await verifyFindings({
        llm: o.verifyLlm ?? o.llm,
        tools: o.tools,
        findings,
        budget,
        signal: o.signal,
        onEvent: inner,
        ...(o.runToolCall ? { runToolCall: o.runToolCall } : {}),
        ...(o.beforeTurn ? { beforeTurn: o.beforeTurn } : {}),
      });
      add(summary, v.usage, v.costUsd, v.requests);
      return { results: v.results, notes: v.notes };
    },
  });
  summary.notes = report.notes;
  // A Stop during the verification keeps the report (its unchecked findings say so); a cancel does not.
  if (isStopNow(o.signal?.reason)) summary.stopReason = "stopped";
  else if (o.signal?.aborted) {
    summary.stopReason = "cancelled";
    emit({ type: "done", stopReason: "cancelled", iterations: summary.iterations, notes: summary.notes });
    throw new ReviewAgentError("The review was cancelled.", summary);
  }

  for (const finding of report.findings) emit({ type: "finding", finding });
  emit({
    type: "report",
    overallScore: report.overallScore,
    findings: report.findings.length,
    stages: report.stages,
    notes: report.notes,
  });
  emit({
    type: "usage",
    usage: summary.usage,
    ...(summary.costUsd === undefined ? {} : { costUsd: summary.costUsd }),
    requests: summary.iterations,
  });
  emit({ type: "done", stopReason: summary.stopReason, iterations: summary.iterations, notes: summary.notes });
  return { ...summary, report };
}

function reserveFor(budget: Budget): { tokens?: number; usd?: number } {
  return {
    ...(budget.limits.maxTokens !== undefined ? { tokens: Math.floor(budget.limits.maxTokens * VERIFY_SHARE) } : {}),
    ...(budget.limits.maxCostUsd !== undefined ? { usd: budget.limits.maxCostUsd * VERIFY_SHARE } : {}),
  };
}

function add(s: AgentRunSummary, usage: Usage, cost: number | undefined, requests: number) {
  for (const k of Object.keys(usage) as Array<keyof Usage>) s.usage[k] += usage[k];
  s.costUsd = s.costUsd === undefined || cost === undefined ? undefined : s.costUsd + cost;
  s.iterations += requests;
}
