/**
 * Every instruction the loop itself adds to a conversation (chat endings, limits, refused tools), in one
 * place so wording changes are reviewed together. A feature's own contract wording (the review's
 * REPORT, the verification's VERDICT) lives with that feature (server/review/reviewer/prompts.ts).
 */

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
