/**
 * The review feature's public face: what the composition root (server/context.ts), the HTTP glue,
 * the tRPC routers and `argus review` (server/cli/review.ts) use. Everything else in server/review is
 * internal (a lint boundary, eslint.boundaries.mjs "review-internals"); other features name review
 * types through this index but never run its code ("review-feature"). The agent the review drives is
 * server/agent.
 */
export { createReviewService, type ReviewService } from "./service.ts";
export { dismissInput, findingsInput, listReviewsInput, startReviewInput } from "./service.ts";
export { createReviewJob } from "./job.ts";
export { executeReview } from "./run.ts";
export { createDemoService, DEMO_DIR, startDemoInput, type DemoService } from "./demo.ts";
export { createFindingTeam, type FindingTeam } from "./team.ts";
export { createSteering, type Steering } from "./steering.ts";
export { ReviewAgentError } from "./reviewer/review.ts";
export { loadExportInput } from "./export/load.ts";
export { isExportFormat, renderExport } from "./export/index.ts";
export { reviewBudgetSchema, reviewSettingsSchema, type ReviewScope } from "./report/schema.ts";
