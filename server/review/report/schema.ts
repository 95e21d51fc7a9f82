/**
 * The review report: what the agent must emit after `REPORT:`, what the static engine produces, what
 * is stored (review.report) and what the exports render. The zod schemas are the TypeScript types.
 *
 * `modelReportSchema` is the contract shown to the model (lenient where models are sloppy: numbers
 * as strings are coerced, unknown keys ignored; scores may be left out — Argus then computes them,
 * scores.ts); `reportSchema` is the stored, checked report with the fields Argus adds (fingerprint,
 * verification, per-file rollup, stage counts) and always every score.
 */
import { z } from "zod";
import { categorySchema, findingSchema, severitySchema } from "../../shared/findings.ts";
import { stageCountsSchema } from "../../shared/stages.ts";

// Severities, categories and stage counts are shared with the browser (server/shared); re-exported
// here so the report's schema stays one import for the server.
export {
  SEVERITIES,
  severitySchema,
  type Severity,
  severityRank,
  atLeast,
  CATEGORIES,
  categorySchema,
  type Category,
  VERIFICATION,
  verificationSchema,
  findingSchema,
  type Finding,
} from "../../shared/findings.ts";
export { stageCountsSchema, type StageCounts } from "../../shared/stages.ts";

const score = z.coerce.number().min(0).max(100);
/** A score as a model sends it. null or "" means "no score" (coercion would read them as 0). */
const modelScore = z.preprocess((v) => (v === null || v === "" ? undefined : v), score.optional());
const nullAsMissing = (v: unknown) => (v === null ? undefined : v);
const line = z.coerce.number().int().positive();

export const modelFindingSchema = z
  .object({
    title: z.string().trim().min(1).max(300),
    severity: severitySchema,
    confidence: z.coerce.number().min(0).max(1),
    category: categorySchema,
    file: z.string().trim().min(1).max(1024),
    start_line: line,
    end_line: line,
    /** Lines quoted verbatim from the file; checked against the snapshot. */
    evidence: z.string().max(4000),
    explanation: z.string().trim().min(1).max(8000),
    suggested_fix: z.string().max(8000).optional(),
    /** Optional unified diff implementing the fix. */
    diff: z.string().max(20000).optional(),
  })
  .refine((f) => f.end_line >= f.start_line, { message: "end_line must be ≥ start_line", path: ["end_line"] });
export type ModelFinding = z.infer<typeof modelFindingSchema>;

export const modelReportSchema = z.object({
  summary: z.string().trim().min(1).max(20000),
  /** 0–100, higher is better. Left out: computed from the findings (scores.ts). */
  overall_score: modelScore,
  /** Left out for a category that has findings: computed from them (scores.ts). */
  category_scores: z.preprocess(nullAsMissing, z.partialRecord(categorySchema, modelScore).default({})),
  findings: z.array(modelFindingSchema).max(2000),
});
export type ModelReport = z.infer<typeof modelReportSchema>;

/**
 * The contract once the repair turns are spent: scores the model still got wrong (out of range, not a
 * number, an unknown category) count as left out, so a review whose findings are fine is never lost
 * for its scores alone. Everything else is checked exactly as in modelReportSchema.
 */
export const salvageReportSchema = modelReportSchema.extend({
  overall_score: modelScore.catch(undefined),
  category_scores: z
    .preprocess(nullAsMissing, z.partialRecord(categorySchema, modelScore.catch(undefined)).default({}))
    .catch({}),
});

export const fileRollupSchema = z.object({
  path: z.string(),
  /** 0–100, higher is better. */
  score: z.number(),
  counts: z.record(severitySchema, z.number().int().nonnegative()),
});
export type FileRollup = z.infer<typeof fileRollupSchema>;

/** A score of the report: the overall one or a category's. */
export const scoreKeySchema = z.union([z.literal("overall"), categorySchema]);
export type ScoreKey = z.infer<typeof scoreKeySchema>;

export const reportSchema = z.object({
  engine: z.enum(["static", "agent"]),
  /** Shown on the report, e.g. "static analysis — no LLM" or "anthropic / claude-sonnet-5-5". */
  engineLabel: z.string(),
  summary: z.string(),
  overallScore: z.number(),
  categoryScores: z.partialRecord(categorySchema, z.number()),
  findings: z.array(findingSchema),
  files: z.array(fileRollupSchema),
  stages: stageCountsSchema,
  /** Set when the report came from a forced final pass or a repair, etc. */
  notes: z.array(z.string()).default([]),
  /** Agent reviews: the scores Argus computed because the model left them out (scores.ts); absent when none. */
  computedScores: z.array(scoreKeySchema).optional(),
});
export type Report = z.infer<typeof reportSchema>;

// ---- scope, budget and settings a review is started with ----------------------------------------

export const reviewScopeSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("project") }),
  z.object({ kind: z.literal("paths"), paths: z.array(z.string().trim().min(1).max(1024)).min(1).max(200) }),
  z.object({
    kind: z.literal("diff"),
    base: z.string().trim().min(1).max(250),
    head: z.string().trim().min(1).max(250),
  }),
]);
export type ReviewScope = z.infer<typeof reviewScopeSchema>;

export const reviewBudgetSchema = z.object({
  maxIterations: z.number().int().min(1).max(500).default(100),
  maxTokens: z.number().int().positive().optional(),
  maxCostUsd: z.number().positive().optional(),
});
export type ReviewBudget = z.infer<typeof reviewBudgetSchema>;

export const reviewSettingsSchema = z.object({
  verify: z.boolean().default(true),
  /** What happens to findings the verification pass did not confirm. */
  unverified: z.enum(["drop", "keep"]).default("keep"),
  minConfidence: z.number().min(0).max(1).default(0),
  minSeverity: severitySchema.default("info"),
  /** Optional different model for the verification pass. */
  verifyModel: z.string().optional(),
});
export type ReviewSettings = z.infer<typeof reviewSettingsSchema>;
