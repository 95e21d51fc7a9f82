/**
 * What the agent tells the outside world while it works. The lead's review job publishes each event to
 * the event bus room `review:<uid>` (chat turns to `chat:<uid>`), where the bus persists it and the room
 * renders it live. One zod discriminated union, so a consumer (page, CLI, test) can validate and switch
 * on `type`. Payloads stay small: tool results travel as a bounded preview, the report as its counts
 * (the full report is stored on the review row).
 */
import { z } from "zod";
import { usageSchema } from "../../llm/index.ts";
import { findingSchema, stageCountsSchema } from "../report/schema.ts";

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
] as const;
export const agentStopReasonSchema = z.enum(STOP_REASONS);
export type AgentStopReason = z.infer<typeof agentStopReasonSchema>;

/** Characters of a tool result shown in a tool_result event. */
export const TOOL_PREVIEW_CHARS = 600;

export const agentEventSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("status"),
    phase: phaseSchema,
    message: z.string(),
    iteration: z.number().int().nonnegative(),
  }),
  /** A text delta of the model's answer (the bus merges consecutive deltas into one stored row). */
  z.object({ type: z.literal("token"), text: z.string(), phase: phaseSchema }),
  z.object({
    type: z.literal("tool_call"),
    id: z.string(),
    name: z.string(),
    input: z.record(z.string(), z.unknown()),
    iteration: z.number().int().nonnegative(),
  }),
  z.object({
    type: z.literal("tool_result"),
    id: z.string(),
    name: z.string(),
    isError: z.boolean(),
    /** The first TOOL_PREVIEW_CHARS characters of what the model received. */
    preview: z.string(),
    chars: z.number().int().nonnegative(),
    durationMs: z.number().nonnegative(),
  }),
  /** One finding of the final report (after checks, dedupe and verification). */
  z.object({ type: z.literal("finding"), finding: findingSchema }),
  z.object({
    type: z.literal("report"),
    overallScore: z.number(),
    findings: z.number().int().nonnegative(),
    stages: stageCountsSchema,
    notes: z.array(z.string()),
  }),
  /** Running totals after each model request. costUsd is absent while the model has no known price. */
  z.object({
    type: z.literal("usage"),
    usage: usageSchema,
    costUsd: z.number().nonnegative().optional(),
    requests: z.number().int().nonnegative(),
  }),
  z.object({
    type: z.literal("done"),
    stopReason: agentStopReasonSchema,
    iterations: z.number().int().nonnegative(),
    notes: z.array(z.string()),
  }),
  z.object({
    type: z.literal("error"),
    message: z.string(),
    /** The LLM error kind when a model request failed (rate_limit, auth, …). */
    kind: z.string().optional(),
  }),
]);
export type AgentEvent = z.infer<typeof agentEventSchema>;
export type AgentEventType = AgentEvent["type"];
export type EventSink = (event: AgentEvent) => void;
