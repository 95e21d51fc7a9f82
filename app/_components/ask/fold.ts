/**
 * A room's ask.* events folded into what the conversations panel shows: threads, messages as they
 * now are, and each running answer's live stream (text so far, tool calls with their results, the
 * cost so far). Messages loaded with a thread and messages from events are merged: a finished state
 * beats a running one, a running one a queued one, and of equals the later wins.
 */
import type { AskMessage, AskThread, AskToolCall } from "@/server/shared/ask.ts";
import type { RoomEvent } from "@/server/shared/room-events.ts";
import type { Usage } from "@/server/shared/usage.ts";

export interface LiveAnswer {
  text: string;
  toolCalls: AskToolCall[];
  usage?: Usage;
  costUsd?: number;
  requests: number;
}

export interface Refusal {
  seq: number;
  by: string;
  reason: string;
}

export interface AskState {
  threads: Map<string, AskThread>;
  messages: Map<string, AskMessage>;
  live: Map<string, LiveAnswer>;
  refusals: Refusal[];
}

const rank = (m: AskMessage) => (m.status === "queued" ? 0 : m.status === "running" ? 1 : 2);

export function mergeMessage(into: Map<string, AskMessage>, m: AskMessage): void {
  const had = into.get(m.id);
  if (!had || rank(m) >= rank(had)) into.set(m.id, m);
}

export function foldAsk(events: readonly RoomEvent[]): AskState {
  const s: AskState = { threads: new Map(), messages: new Map(), live: new Map(), refusals: [] };
  const liveOf = (id: string) => {
    let l = s.live.get(id);
    if (!l) s.live.set(id, (l = { text: "", toolCalls: [], requests: 0 }));
    return l;
  };
  for (const e of events) {
    switch (e.type) {
      case "ask.thread":
        s.threads.set(e.payload.thread.id, e.payload.thread);
        break;
      case "ask.message":
        mergeMessage(s.messages, e.payload.message);
        break;
      case "ask.token":
        liveOf(e.payload.answerId).text += e.payload.text;
        break;
      case "ask.tool_call":
        liveOf(e.payload.answerId).toolCalls.push({ id: e.payload.id, name: e.payload.name, input: e.payload.input });
        break;
      case "ask.tool_result": {
        const call = liveOf(e.payload.answerId).toolCalls.find((c) => c.id === e.payload.id);
        if (call) {
          const { isError, preview, chars, durationMs } = e.payload;
          call.result = { isError, preview, chars, durationMs };
        }
        break;
      }
      case "ask.usage": {
        const l = liveOf(e.payload.answerId);
        l.usage = e.payload.usage;
        l.costUsd = e.payload.costUsd;
        l.requests = e.payload.requests;
        break;
      }
      case "ask.refused":
        s.refusals.push({ seq: e.seq, by: e.payload.by.name, reason: e.payload.reason });
        break;
      default:
        break;
    }
  }
  return s;
}
