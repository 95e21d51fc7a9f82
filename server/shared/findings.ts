/** Findings: severities and categories (one list each) and a checked finding as the report stores it
 * and review events carry it — for the report schema, the tools, the UI. */
import { z } from "zod";

/** Worst first: the order the UI lists them in and severityRank counts by. */
export const SEVERITIES = ["critical", "high", "medium", "low", "info"] as const;
export const severitySchema = z.enum(SEVERITIES);
export type Severity = z.infer<typeof severitySchema>;
/** critical = 0 … info = 4; lower is worse. */
export const severityRank = (s: Severity) => SEVERITIES.indexOf(s);
export const atLeast = (s: Severity, floor: Severity) => severityRank(s) <= severityRank(floor);

export const CATEGORIES = [
  "security",
  "correctness",
  "reliability",
  "performance",
  "maintainability",
  "style",
  "testing",
  "documentation",
] as const;
export const categorySchema = z.enum(CATEGORIES);
export type Category = z.infer<typeof categorySchema>;

export const VERIFICATION = ["confirmed", "unverified", "not_run"] as const;
export const verificationSchema = z.enum(VERIFICATION);

export const findingSchema = z.object({
  fingerprint: z.string().min(1),
  title: z.string(),
  severity: severitySchema,
  confidence: z.number().min(0).max(1),
  category: categorySchema,
  file: z.string(),
  startLine: z.number().int().positive(),
  endLine: z.number().int().positive(),
  evidence: z.string(),
  explanation: z.string(),
  suggestedFix: z.string().optional(),
  diff: z.string().optional(),
  verification: verificationSchema,
  /** What the verification pass said: the confirming evidence, or why it did not confirm. */
  verificationNote: z.string().optional(),
  /** "static" for findings of the static engine / pre-pass (tool + rule in ruleId). */
  source: z.enum(["agent", "static"]),
  ruleId: z.string().optional(),
});
export type Finding = z.infer<typeof findingSchema>;
