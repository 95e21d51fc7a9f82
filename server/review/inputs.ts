/** The review service's inputs, as the tRPC routers and the CLI send them (validated with zod). */
import { z } from "zod";
import {
  CATEGORIES,
  SEVERITIES,
  reviewBudgetSchema,
  reviewScopeSchema,
  reviewSettingsSchema,
} from "./report/schema.ts";
import { REVIEW_STATUSES } from "../shared/statuses.ts";

export const startReviewInput = z.object({
  projectUid: z.uuid(),
  engine: z.enum(["static", "agent"]),
  scope: reviewScopeSchema.default({ kind: "project" }),
  /** A workspace prompt; the workspace default when omitted. Ignored by the static engine. */
  promptUid: z.uuid().optional(),
  /** A workspace provider connection; the server's environment default when null/omitted. */
  connectionUid: z.uuid().nullable().optional(),
  model: z.string().trim().min(1).max(200).optional(),
  budget: reviewBudgetSchema.partial().optional(),
  settings: reviewSettingsSchema.partial().optional(),
});

export const listReviewsInput = z.object({
  workspaceId: z.string().min(1),
  projectUid: z.uuid().optional(),
  status: z.enum(REVIEW_STATUSES).optional(),
  limit: z.number().int().min(1).max(100).default(20),
  /** The uid of the last review of the previous page. */
  cursor: z.uuid().optional(),
});

export const findingsInput = z.object({
  reviewUid: z.uuid(),
  severity: z.enum(SEVERITIES).optional(),
  category: z.enum(CATEGORIES).optional(),
  file: z.string().max(4096).optional(),
  minConfidence: z.number().min(0).max(1).optional(),
  sort: z.enum(["severity", "file", "confidence", "category"]).default("severity"),
  limit: z.number().int().min(1).max(5000).default(5000),
});

export const dismissInput = z.object({
  reviewUid: z.uuid(),
  fingerprint: z.string().min(1).max(200),
  reason: z.string().trim().max(500).optional(),
});

export type FindingFilters = Omit<z.infer<typeof findingsInput>, "reviewUid">;
