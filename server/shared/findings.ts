/** Severities and categories of findings: one list each, for the report schema, the tools, the UI. */
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
