/**
 * The verification pass (noise control): every finding that survived the cheap checks is re-checked
 * by its own short, tool-using conversation — optionally with a different model — that must end with
 * `VERDICT: {"verdict": "confirmed", "evidence": …}` or `{"verdict": "rejected", "reason": …}`.
 * A missing or unusable verdict after the repair turns counts as not confirmed. Findings are checked
 * one at a time against the review's shared budget; once it is spent (or the run is cancelled, or the
 * provider fails) the remaining findings are "not_run" and build.ts keeps them marked as such.
 */
import { z } from "zod";
import type { Budget } from "../../llm/index.ts";
import type { LlmClient } from "../../llm/index.ts";
import type { Usage } from "../../llm/index.ts";
import type { VerificationResult } from "../report/build.ts";
import type { Finding } from "../report/schema.ts";
import {
  type ReviewTool,
  type EventSink,
  type BeforeTurn,
  type Contract,
  runLoop,
  type RunToolCall,
} from "../../agent/index.ts";
import * as P from "./prompts.ts";

export const verdictSchema = z
  .object({
    verdict: z.enum(["confirmed", "rejected"]),
    evidence: z.string().max(8000).optional(),
    reason: z.string().max(8000).optional(),
  })
  .refine((v) => v.verdict !== "confirmed" || (v.evidence ?? "").trim().length > 0, {
    message: "a confirmed verdict needs evidence: quote the lines that prove the problem",
    path: ["evidence"],
  });
export type Verdict = z.infer<typeof verdictSchema>;

const verdictContract: Contract<Verdict> = {
  tag: P.VERDICT_TAG,
  schema: verdictSchema,
  repairMessage: P.verifyRepairMessage,
  forcedMessage: P.verifyForcedMessage,
  maxTokensNudge: P.verifyForcedMessage("Your reply was cut off at the output limit."),
};

export interface VerifyOptions {
  llm: LlmClient;
  tools: readonly ReviewTool[];
  findings: Finding[];
  budget?: Budget;
  signal?: AbortSignal;
  onEvent?: EventSink;
  runToolCall?: RunToolCall;
  /** Tool-using turns per finding before a forced verdict (default 6). */
  maxIterations?: number;
  /** Findings verified at most; the rest are not_run (default 100). */
  maxFindings?: number;
  /** Steering between the turns of each check (a pause holds it; a stop forces its verdict). */
  beforeTurn?: BeforeTurn;
}

export interface VerifyOutcome {
  results: Map<string, VerificationResult>;
  usage: Usage;
  costUsd: number | undefined;
  requests: number;
  notes: string[];
}

export async function verifyFindings(o: VerifyOptions): Promise<VerifyOutcome> {
  const results = new Map<string, VerificationResult>();
  const usage: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  let cost: number | undefined = 0;
  let requests = 0;
  const notes: string[] = [];
  const maxFindings = o.maxFindings ?? 100;
  let stopped: string | undefined;
  // Each check is a loop of its own; only the review as a whole says "done".
  const sink: EventSink = (e) => e.type !== "done" && o.onEvent?.(e);

  for (const [i, f] of o.findings.entries()) {
    if (stopped || o.signal?.aborted || i >= maxFindings) {
      results.set(f.fingerprint, { verdict: "not_run" });
      continue;
    }
    o.onEvent?.({
      type: "status",
      phase: "verifying",
      message: `verifying ${i + 1} of ${o.findings.length}: ${f.title}`,
      iteration: 0,
    });
    const out = await runLoop<Verdict>({
      llm: o.llm,
      system: P.VERIFY_SYSTEM,
      firstMessage: P.verifyFirstMessage(JSON.stringify(describe(f), null, 1)),
      tools: o.tools,
      contract: verdictContract,
      budget: o.budget,
      maxIterations: o.maxIterations ?? 6,
      maxRepairs: 1,
      finalReserveTokens: 1024,
      signal: o.signal,
      onEvent: sink,
      phase: "verifying",
      ...(o.runToolCall ? { runToolCall: o.runToolCall } : {}),
      ...(o.beforeTurn ? { beforeTurn: o.beforeTurn } : {}),
    });
    for (const k of Object.keys(usage) as Array<keyof Usage>) usage[k] += out.usage[k];
    cost = cost === undefined || out.costUsd === undefined ? undefined : cost + out.costUsd;
    requests += out.iterations;

    if (out.value) {
      results.set(
        f.fingerprint,
        out.value.verdict === "confirmed"
          ? { verdict: "confirmed", note: out.value.evidence!.trim() }
          : { verdict: "rejected", note: out.value.reason?.trim() || "rejected without a reason" },
      );
    } else if (out.stopReason === "invalid_report") {
      results.set(f.fingerprint, { verdict: "rejected", note: "the verifier gave no usable verdict" });
    } else {
      // cancelled, budget spent or the provider failed: this and every later finding stay unchecked
      results.set(f.fingerprint, { verdict: "not_run" });
      stopped =
        out.stopReason === "budget_exhausted"
          ? "verification stopped: the budget is spent"
          : out.stopReason === "cancelled"
            ? "verification cancelled"
            : `verification stopped: ${out.error ?? out.stopReason}`;
      notes.push(stopped);
    }
  }
  if (o.findings.length > maxFindings) notes.push(`only the first ${maxFindings} findings were verified`);
  return { results, usage, costUsd: cost, requests, notes };
}

/** The finding as the verifier sees it (the model's own field names). */
function describe(f: Finding) {
  return {
    title: f.title,
    severity: f.severity,
    category: f.category,
    file: f.file,
    start_line: f.startLine,
    end_line: f.endLine,
    evidence: f.evidence,
    explanation: f.explanation,
  };
}
