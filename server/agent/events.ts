/**
 * What the agent tells the outside world while it works. The schema is shared with the browser (a
 * review room renders these events), so it lives in server/shared/agent-events.ts; the review job
 * publishes each event to the room `review:<uid>`, where the bus persists it and the page renders it.
 */
export {
  PHASES,
  phaseSchema,
  type Phase,
  STOP_REASONS,
  agentStopReasonSchema,
  type AgentStopReason,
  TOOL_PREVIEW_CHARS,
  agentEventSchema,
  type AgentEvent,
  type AgentEventType,
  type EventSink,
} from "../shared/agent-events.ts";
