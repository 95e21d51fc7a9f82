/**
 * bench/ask.ts's samples: the watching client's clock (an answer's first `ask.token`, its final
 * message), one timed question against both clocks, and the series of samples with their figures.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { AskMessage } from "../server/shared/ask.ts";
import type { RoomEvent } from "../server/shared/room-events.ts";
import type { RoomClient } from "../test/helpers/room-client.ts";
import { cpuMs, type ProbedModel } from "./_ask-model-probe.ts";
import { summarize } from "./_stats.ts";

type Series = "toRequest" | "toReceipt" | "toWatcher" | "toRequestCpu" | "toWatcherCpu";
export type Samples = Record<Series, number[]>;

export const samples = (): Samples => ({
  toRequest: [],
  toReceipt: [],
  toWatcher: [],
  toRequestCpu: [],
  toWatcherCpu: [],
});

/** The watcher's clock: when each answer's first token and its final state arrived. */
export function watchAnswers(watcher: RoomClient, model: ProbedModel) {
  let firstWatchedToken: number | undefined;
  let firstWatchedCpu: number | undefined;
  let finished: AskMessage | undefined;
  watcher.socket.on("event", (e: RoomEvent) => {
    if (e.type === "ask.token" && firstWatchedToken === undefined) {
      firstWatchedToken = performance.now();
      firstWatchedCpu = cpuMs();
    }
    if (e.type === "ask.message") {
      const m = e.payload.message;
      if (m.kind === "answer" && !["queued", "running"].includes(m.status)) finished = m;
    }
  });
  const waitDone = async (what: string): Promise<AskMessage> => {
    const until = Date.now() + 30_000;
    while (!finished) {
      if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
      await sleep(1);
    }
    if (finished.status !== "done") throw new Error(`${what} ended ${finished.status}: ${finished.error ?? ""}`);
    return finished;
  };
  const reset = () => {
    model.reset();
    firstWatchedToken = undefined;
    firstWatchedCpu = undefined;
    finished = undefined;
  };

  /** Asks (`ask`) and waits for the answer: the spans from the question to the model and from the model to the watcher. */
  async function sample(ask: () => Promise<void>, what: string) {
    reset();
    const askedCpu = cpuMs();
    const askedAt = performance.now();
    await ask();
    const answer = await waitDone(what);
    const side = model.side();
    if (
      side.sentAt === undefined ||
      side.requestAt === undefined ||
      side.firstTokenAt === undefined ||
      firstWatchedToken === undefined
    )
      throw new Error(`${what}: the model was not asked, or no token reached the watcher`);
    return {
      answer,
      toRequest: side.sentAt - askedAt,
      toReceipt: side.requestAt - askedAt,
      toWatcher: firstWatchedToken - side.firstTokenAt,
      toRequestCpu: side.sentCpu! - askedCpu,
      toWatcherCpu: firstWatchedCpu! - side.firstTokenCpu!,
    };
  }
  return { waitDone, reset, sample };
}

type Sample = Awaited<ReturnType<ReturnType<typeof watchAnswers>["sample"]>>;

export const keep = (into: Samples, s: Sample) => {
  into.toRequest.push(s.toRequest);
  into.toReceipt.push(s.toReceipt);
  into.toWatcher.push(s.toWatcher);
  into.toRequestCpu.push(s.toRequestCpu);
  into.toWatcherCpu.push(s.toWatcherCpu);
};

/** A series' summaries, and whether both overheads meet the target at p50. */
export const figures = (s: Samples, targetP50Ms: number) => {
  const toRequest = summarize(s.toRequest);
  const toWatcher = summarize(s.toWatcher);
  return {
    "question → first model request, ms": toRequest,
    "question → the scripted model's receipt of it (same process, after the rows' write), ms": summarize(s.toReceipt),
    "model's first token → first token on a watching client, ms": toWatcher,
    "CPU time of the process meanwhile: question → first model request, ms": summarize(s.toRequestCpu),
    "CPU time of the process meanwhile: first token → watching client, ms": summarize(s.toWatcherCpu),
    meetsTarget: toRequest.p50 <= targetP50Ms && toWatcher.p50 <= targetP50Ms,
  };
};
