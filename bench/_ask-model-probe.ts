/**
 * bench/ask.ts's model side: the scripted model (Anthropic wire format) with a probe on the answer being
 * measured — when Argus's HTTP client finished sending the first request (undici's `bodySent`), when
 * the scripted server received it, and when it wrote the first text delta — each with the CPU time then.
 */
import diagnostics from "node:diagnostics_channel";
import { type RecordedRequest, startScriptedServer } from "../server/llm/scripted/server.ts";

/** CPU time this process has used (user + system), ms: what a span cost, whatever else ran on the machine. */
export const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** What the scripted model saw of the answer being measured: its first request and first text delta. */
export interface ModelSide {
  /** Argus's HTTP client finished sending the request (undici's bodySent). */
  sentAt?: number;
  sentCpu?: number;
  /** The scripted server (this process) received it. */
  requestAt?: number;
  /** The process's CPU time (user + system, ms) when the request arrived. */
  requestCpu?: number;
  firstTokenAt?: number;
  firstTokenCpu?: number;
  request?: RecordedRequest;
}

/**
 * Starts the scripted model replying `answer`. `side()` is what it saw since the last `reset()`;
 * `unsubscribe()` stops listening to undici (the model server itself closes with `llm.close()`).
 */
export async function startProbedModel(answer: string) {
  let side: ModelSide = {};
  // Requests to the scripted model's origin that Argus finished sending (the first one counts).
  let modelOrigin = "";
  const onBodySent = (m: unknown) => {
    const request = (m as { request?: { origin?: unknown; path?: unknown } }).request;
    if (side.sentAt === undefined && request?.origin === modelOrigin && String(request.path).includes("/messages"))
      side = { ...side, sentAt: performance.now(), sentCpu: cpuMs() };
  };
  diagnostics.subscribe("undici:request:bodySent", onBodySent);
  const llm = await startScriptedServer({
    script: [{ text: answer, chunkDelayMs: 1 }],
    onRequest: (r) => {
      if (side.requestAt === undefined && r.api === "anthropic")
        side = { ...side, requestAt: performance.now(), requestCpu: cpuMs(), request: r };
    },
    onFrame: (r, frame) => {
      if (r === side.request && side.firstTokenAt === undefined && frame.includes('"text_delta"')) {
        side.firstTokenAt = performance.now();
        side.firstTokenCpu = cpuMs();
      }
    },
  });
  modelOrigin = new URL(llm.url).origin;
  return {
    llm,
    side: () => side,
    reset: () => {
      side = {};
    },
    unsubscribe: () => diagnostics.unsubscribe("undici:request:bodySent", onBodySent),
  };
}

export type ProbedModel = Awaited<ReturnType<typeof startProbedModel>>;
