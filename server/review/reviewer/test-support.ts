/** Test-only review model output: a finding and a REPORT answer as a model writes them. */
export { memoryTools, readFrom, type Tree } from "../../agent/test-support.ts";

/** A model finding as the model writes it, with defaults for the fields a test does not care about. */
export function modelFinding(f: {
  title: string;
  file: string;
  start_line: number;
  end_line?: number;
  evidence: string;
  severity?: string;
  category?: string;
  confidence?: number;
}) {
  return {
    severity: "high",
    category: "security",
    confidence: 0.9,
    explanation: "Explained.",
    suggested_fix: "Fix it.",
    end_line: f.start_line,
    ...f,
  };
}

export const reportText = (findings: unknown[], extra: Record<string, unknown> = {}) =>
  `Done reading.\nREPORT: ${JSON.stringify({ summary: "A small service.", overall_score: 70, category_scores: { security: 50 }, findings, ...extra })}`;
