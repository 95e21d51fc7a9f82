/**
 * The last chance for a REPORT the repair turns could not fix: when the model's final answer fails
 * the contract only because of its scores, the report is kept without them (Argus computes them from
 * the findings, report/scores.ts) instead of losing the whole review. Findings are checked exactly as
 * in the contract; anything else wrong still fails the review.
 */
import type { Message } from "../../llm/index.ts";
import { type ModelReport, salvageReportSchema } from "../report/schema.ts";
import { extractTagged } from "../../agent/index.ts";
import { REPORT_TAG } from "./prompts.ts";

export const SALVAGED_NOTE =
  "The model's scores were still unusable after the repair turns, so the report was kept without them.";

/** The text of the model's last answer in a conversation ("" when it never answered). */
export function lastAnswer(messages: readonly Message[]): string {
  const last = messages.findLast((m) => m.role === "assistant");
  return (last?.content ?? []).map((b) => (b.type === "text" ? b.text : "")).join("");
}

export function salvageReport(messages: readonly Message[]): ModelReport | undefined {
  const r = extractTagged(lastAnswer(messages), REPORT_TAG, salvageReportSchema);
  return r.ok ? r.value : undefined;
}
