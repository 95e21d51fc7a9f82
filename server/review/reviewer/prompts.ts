/**
 * The review's instructions to the agent: the REPORT contract (appended to the review's own prompt,
 * because users edit prompts and must not be able to break the format), its repair / critique /
 * forced-final wording, and the verification pass's VERDICT contract. The loop's own wording is in
 * server/agent/prompts.ts.
 */
import { CATEGORIES, SEVERITIES } from "../report/schema.ts";

export const REPORT_TAG = "REPORT";
export const VERDICT_TAG = "VERDICT";

export const REPORT_CONTRACT = `
## How to finish

When you have finished investigating, end your answer with a line starting with "${REPORT_TAG}:" followed by one JSON object
(no text after it):

${REPORT_TAG}: {
  "summary": "what the code does and the main risks, a few sentences",
  "overall_score": 0-100 (higher is better),
  "category_scores": { "<category>": 0-100, ... },
  "findings": [
    {
      "title": "short, specific",
      "severity": ${SEVERITIES.map((s) => `"${s}"`).join(" | ")},
      "confidence": 0-1,
      "category": ${CATEGORIES.map((c) => `"${c}"`).join(" | ")},
      "file": "path relative to the project root, as the tools show it",
      "start_line": first line, "end_line": last line,
      "evidence": "the offending lines quoted verbatim from the file, without line numbers",
      "explanation": "why it matters",
      "suggested_fix": "a concrete fix",
      "diff": "optional unified diff"
    }
  ]
}

Findings whose lines do not exist or do not contain the quoted evidence are discarded, so quote exactly.
An empty "findings" list is a valid answer when you found nothing worth reporting.`;

export const repairMessage = (error: string) =>
  `Your ${REPORT_TAG} could not be used:\n${error}\n\nReply with ${REPORT_TAG}: followed by the corrected JSON object only. Do not call tools.`;

export const critiqueMessage = (reportJson: string) =>
  `Before this report is saved, review it critically:\n${reportJson}\n\n` +
  `- Drop findings you cannot back with evidence quoted verbatim from the code.\n` +
  `- Downgrade severities or confidences that are overstated.\n` +
  `- Merge findings that share one root cause.\n` +
  `You may use the tools to re-check a finding. Then end with ${REPORT_TAG}: and the final JSON object (the same one if nothing changes).`;

export const MAX_TOKENS_NUDGE =
  `Your last reply was cut off at the output limit. Stop investigating: emit ${REPORT_TAG}: with the JSON object now, ` +
  `keeping explanations short so it fits. Do not call tools.`;

export const forcedFinalMessage = (why: string) =>
  `${why} Do not call any more tools. Based on what you have read so far, end your answer with ${REPORT_TAG}: and the JSON object now.`;

// ---- verification ---------------------------------------------------------------------------------

export const VERIFY_SYSTEM = `You verify one finding of an automated code review against the actual code. You have read-only tools
over the project. Read the lines the finding points at and whatever else you need (callers, definitions,
validation upstream) to decide whether the problem is real as described.

Be sceptical: reject the finding if the code does not do what it claims, if the problem is prevented
elsewhere (validation, a guard, a framework default), or if it is a matter of taste. Confirm it only when
you can quote the code that proves it.

End your answer with one line:
${VERDICT_TAG}: {"verdict": "confirmed", "evidence": "the lines (quoted verbatim, with file and line numbers) that prove the problem"}
or
${VERDICT_TAG}: {"verdict": "rejected", "reason": "why the finding does not hold"}`;

export const verifyFirstMessage = (findingJson: string) => `Verify this finding:\n${findingJson}`;

export const verifyRepairMessage = (error: string) =>
  `Your ${VERDICT_TAG} could not be used:\n${error}\n\nReply with ${VERDICT_TAG}: followed by the JSON object only. Do not call tools.`;

export const verifyForcedMessage = (why: string) =>
  `${why} Do not call any more tools. Decide now and end with ${VERDICT_TAG}: and the JSON object.`;

export const WHY_VERIFY_ITERATIONS = "You have used all the steps allowed for this check.";
