/**
 * Every instruction the loop adds to a conversation, in one place so wording changes are reviewed
 * together. The review's own prompt (snapshotted on the review) stays the system prompt; the REPORT
 * contract is appended to it because users edit prompts and must not be able to break the format.
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

export const chatForcedFinalMessage = (why: string) =>
  `${why} Do not call any more tools. Answer the question now with what you have found so far, and say what you could not check.`;

export const WHY_CHAT_ITERATIONS = "You have reached the step limit for this answer.";
export const WHY_CHAT_BUDGET = "The token/cost budget is nearly spent.";
export const WHY_CHAT_STOPPED = "A teammate asked you to stop here.";

export const CHAT_CONTINUE =
  "Your answer was cut off at the output limit. Continue exactly where you stopped, without repeating anything.";

export const WHY_ITERATIONS = "You have reached the iteration limit for this review.";
export const WHY_BUDGET = "The token/cost budget for this review is nearly spent.";
export const WHY_STOPPED = "A teammate stopped the review here: report what you found so far.";

/** The result of every tool call the model makes in a step that offers no tools. */
export const TOOLS_UNAVAILABLE = "Tools are not available in this step. Answer without calling tools.";

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
