/**
 * What the review agent tells the outside world while it works: one payload map, as the flat union the
 * loop emits (`agentEventSchema`) and the members of a review room's events (room-events.ts). Payloads
 * stay small: tool results travel as a bounded preview, the report as its counts (the full report is
 * stored on the review row).
 */
import { z } from "zod";
import { type Flat, flatUnion } from "./event-union.ts";
import { findingSchema } from "./findings.ts";
import { stageCountsSchema } from "./stages.ts";
import { usageSchema } from "./usage.ts";

/** The part of the work an event belongs to. */
export const PHASES = [
  "exploring",
  "max_tokens_recovery",
  "forced_final",
  "repairing",
  "critiquing",
  "verifying",
  "finalizing",
] as const;
export const phaseSchema = z.enum(PHASES);
export type Phase = z.infer<typeof phaseSchema>;

/** Why the loop stopped. `end_turn` = the model finished by itself. */
export const STOP_REASONS = [
  "end_turn",
  "max_iterations",
  "budget_exhausted",
  "cancelled",
  "error",
  "invalid_report",
  /** A teammate stopped the exploration; the answer covers what was read until then. */
  "stopped",
] as const;
export const agentStopReasonSchema = z.enum(STOP_REASONS);
export type AgentStopReason = z.infer<typeof agentStopReasonSchema>;

/** Characters of a tool result shown in a tool_result event. */
export const TOOL_PREVIEW_CHARS = 600;

export const agentPayloads = {
  /** The agent's phase and what it is doing now. */
  status: z.object({
    phase: phaseSchema,
    message: z.string(),
    iteration: z.number().int().nonnegative(),
  }),
  /** A text delta of the model's answer (the bus coalesces deltas into frames). */
  token: z.object({ text: z.string(), phase: phaseSchema }),
  tool_call: z.object({
    id: z.string(),
    name: z.string(),
    input: z.record(z.string(), z.unknown()),
    iteration: z.number().int().nonnegative(),
  }),
  tool_result: z.object({
    id: z.string(),
    name: z.string(),
    isError: z.boolean(),
    /** The first TOOL_PREVIEW_CHARS characters of what the model received. */
    preview: z.string(),
    chars: z.number().int().nonnegative(),
    durationMs: z.number().nonnegative(),
  }),
  /** One finding of the final report (after checks, dedupe and verification). */
  finding: z.object({ finding: findingSchema }),
  report: z.object({
    overallScore: z.number(),
    findings: z.number().int().nonnegative(),
    stages: stageCountsSchema,
    notes: z.array(z.string()),
  }),
  /** Running totals after each model request. costUsd is absent while the model has no known price. */
  usage: z.object({
    usage: usageSchema,
    costUsd: z.number().nonnegative().optional(),
    requests: z.number().int().nonnegative(),
  }),
  done: z.object({
    stopReason: agentStopReasonSchema,
    iterations: z.number().int().nonnegative(),
    notes: z.array(z.string()),
  }),
  error: z.object({
    message: z.string(),
    /** The LLM error kind when a model request failed (rate_limit, auth, …). */
    kind: z.string().optional(),
  }),
};

export const agentEventSchema = flatUnion(agentPayloads);
export type AgentEvent = Flat<typeof agentPayloads>;
export type AgentEventType = AgentEvent["type"];
export type EventSink = (event: AgentEvent) => void;
