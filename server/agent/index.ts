/**
 * The agent layer every feature shares (reviews, Ask, room chat, the coming pull-request reviews):
 * the tool-using loop, chat turns, the read-only tools over a Sandbox, the evidence location check and
 * finding fingerprints, the code search behind search_code, and static pre-pass findings as the tools
 * read them. Features import this index only (a lint boundary, eslint.boundaries.mjs "agent-index");
 * the README maps the files.
 */
export {
  agentEventSchema,
  type AgentEvent,
  type AgentStopReason,
  type EventSink,
  type Phase,
  TOOL_PREVIEW_CHARS,
} from "./events.ts";
export {
  DEFAULT_MAX_ITERATIONS,
  pushUser,
  runLoop,
  type BeforeTurn,
  type Contract,
  type LoopOptions,
  type LoopOutcome,
  type LoopState,
} from "./loop.ts";
export { StopNow, isStopNow, type ProviderFailure } from "./loop/stop.ts";
export { extractTagged, type Extracted } from "./contract.ts";
export type { RunToolCall } from "./tool-runner.ts";
export { chatWithAgent, type AgentRunSummary, type ChatWithAgentOptions, type ChatWithAgentResult } from "./chat.ts";
export * from "./tools/index.ts";
export { ripgrepArgs, type RgQuery } from "./tools/ripgrep.ts";
export { Sandbox, SandboxError, type DirListing, type SandboxErrorCode } from "./sandbox.ts";
export { locateEvidence, type LocateResult } from "./locate.ts";
export { fingerprint, normaliseEvidence, normalisePath, type FingerprintInput } from "./fingerprint.ts";
export { codeSearchFor } from "./code-search.ts";
export { adviceFor, staticCategory, staticInputFromRow, type StaticInput } from "./static-findings.ts";
