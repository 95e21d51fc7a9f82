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

/** One hop of a data flow (a taint finding's trace): where it is and what happens there
 * ("req.query.id", "id = …", "db.query()"). Paths are relative to the snapshot root. */
export const traceStepSchema = z.object({
  file: z.string().min(1).max(1024),
  line: z.number().int().positive(),
  label: z.string().max(300),
});
export type TraceStep = z.infer<typeof traceStepSchema>;
/** Source first, sink last. */
export const traceSchema = z.array(traceStepSchema).min(1).max(100);

/** A stored trace (JSON text in the database) read back; null when absent or not a valid trace. */
export function parseTrace(json: string | null | undefined): TraceStep[] | null {
  if (!json) return null;
  try {
    return traceSchema.safeParse(JSON.parse(json)).data ?? null;
  } catch {
    return null;
  }
}

/** A trace as the database stores it (JSON text, within traceSchema's limits); null when there is none. */
export function traceJson(trace: readonly TraceStep[] | null | undefined): string | null {
  if (!trace?.length) return null;
  const kept = trace.length > 100 ? [...trace.slice(0, 50), ...trace.slice(-50)] : trace;
  return JSON.stringify(kept.map((s) => ({ file: s.file, line: s.line, label: s.label.slice(0, 300) })));
}

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
  /** A taint finding's data flow, source → steps → sink (the static engine's; the agent's have none). */
  trace: traceSchema.optional(),
});
export type Finding = z.infer<typeof findingSchema>;
