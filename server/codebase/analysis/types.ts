/** What the static-analysis pre-pass produces. */

export { SEVERITIES, type Severity, type TraceStep } from "../../shared/findings.ts";
import type { Severity, TraceStep } from "../../shared/findings.ts";

export interface Finding {
  /** "argus", "eslint", "ruff", "bandit". */
  tool: string;
  /** Tool-specific: "secrets/aws-access-key", "security/detect-child-process", "S602", "B602". */
  ruleId: string;
  severity: Severity;
  /** 0–1: how sure the rule is that this is a real problem (not how bad it would be). */
  confidence: number;
  /** posix path relative to the snapshot root. */
  file: string;
  startLine: number;
  endLine: number;
  message: string;
  /** Taint findings: source → steps → sink (also written into the message as "flow: …"). */
  trace?: TraceStep[];
}

/** What happened to each tool: the record of why something was skipped or fell back. */
export interface ToolRun {
  tool: string;
  status: "ran" | "skipped" | "failed";
  /** One sentence: the config used, why it was skipped, or what failed. */
  detail: string;
  files: number;
  findings: number;
  durationMs: number;
}
