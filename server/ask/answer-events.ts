/**
 * A running answer's stream into its thread's room (runner.ts): the agent's tokens, tool calls, tool
 * results and usage as `ask.*` events, with the tool calls kept in the answer's details and the usage
 * written as it comes.
 */
import type { AskMessage as AskMessageRow } from "../db/client.ts";
import type { EventBus, RoomEventBody } from "../events/bus.ts";
import type { Logger } from "../logger.ts";
import type { AgentEvent } from "../agent/index.ts";
import type { AskToolCall } from "../shared/ask.ts";
import type { RoomName } from "../shared/rooms.ts";
import type { Details } from "./views.ts";

export interface AnswerStreamDeps {
  events: EventBus;
  log: Logger;
  room: RoomName<"project">;
  /** The uids each event names. */
  ids: { threadId: string; answerId: string };
  details: Details;
  writeUsage: (data: Partial<AskMessageRow>) => void;
}

/** The agent's event handler, and what was streamed (kept as the answer when it is cancelled midway). */
export function answerStream({ events, log, room, ids, details, writeUsage }: AnswerStreamDeps) {
  const byId = new Map<string, AskToolCall>();
  // What was streamed, kept as the answer when it is cancelled midway (the loop returns no text then).
  let streamed = "";
  const onEvent = (e: AgentEvent) => {
    const send = (body: RoomEventBody<"project">) =>
      void events
        .publish(room, body)
        .catch((err: unknown) => log.warn({ err, answer: ids.answerId }, "answer event not published"));
    if (e.type === "token") {
      streamed += e.text;
      send({ type: "ask.token", payload: { ...ids, text: e.text } });
    } else if (e.type === "tool_call") {
      const call: AskToolCall = { id: e.id, name: e.name, input: e.input };
      byId.set(e.id, call);
      details.toolCalls.push(call);
      send({ type: "ask.tool_call", payload: { ...ids, id: e.id, name: e.name, input: e.input } });
    } else if (e.type === "tool_result") {
      const call = byId.get(e.id);
      const result = { isError: e.isError, preview: e.preview, chars: e.chars, durationMs: e.durationMs };
      if (call) call.result = result;
      send({ type: "ask.tool_result", payload: { ...ids, id: e.id, name: e.name, ...result } });
    } else if (e.type === "usage") {
      writeUsage({
        inputTokens: e.usage.inputTokens,
        outputTokens: e.usage.outputTokens,
        costUsd: e.costUsd ?? null,
      });
      send({
        type: "ask.usage",
        payload: {
          ...ids,
          usage: e.usage,
          requests: e.requests,
          ...(e.costUsd !== undefined ? { costUsd: e.costUsd } : {}),
        },
      });
    }
  };
  return { onEvent, streamed: () => streamed };
}
