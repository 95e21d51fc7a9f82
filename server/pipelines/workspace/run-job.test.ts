/**
 * The pipeline-run job's own decisions (its queue is stood in for): a run cancelled while it waited
 * is skipped; a run handed out again after its worker died fails with the reason (its model calls
 * cost money, its memory file would mix two runs); a given-up one says so; a cancel signal reaches
 * the run service of the process that runs it.
 */
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openMigratedDb } from "../../../test/helpers/db.ts";
import { createLocalSignals } from "../../cluster/signals.ts";
import type { Db } from "../../db/client.ts";
import { createEventBus } from "../../events/bus.ts";
import type { JobContext, JobHandler, JobKindOptions, JobQueue } from "../../jobs/queue.ts";
import { runRoom } from "../../shared/rooms.ts";
import type { RunService } from "../runs.ts";
import { CANCEL_RUN_SIGNAL, registerRunJob, RUN_STOPPED, type PipelineRunJob } from "./run-job.ts";

const log = pino({ level: "silent" });
let db: Db;
let close: () => Promise<void>;
let handler: JobHandler<PipelineRunJob>;
let options: JobKindOptions<PipelineRunJob>;
const executed: string[] = [];
const cancelled: string[] = [];
const signals = createLocalSignals(log);
let events: ReturnType<typeof createEventBus>;

beforeAll(async () => {
  ({ db, close } = await openMigratedDb());
  events = createEventBus({ db, log });
  const queue = {
    durable: true,
    register: (_kind: string, h: JobHandler<PipelineRunJob>, o: JobKindOptions<PipelineRunJob>) => {
      handler = h;
      options = o;
    },
  } as unknown as JobQueue;
  const runs = {
    runQueued: async (uid: string) => void executed.push(uid),
    cancel: (uid: string) => cancelled.push(uid) > 0,
  } as unknown as RunService;
  registerRunJob({ db, events, queue, signals, runs, box: { open: (s) => s }, log });
});
afterAll(() => close());

async function run(status = "running") {
  const uid = crypto.randomUUID();
  await db.pipelineRun.create({
    data: { uid, pipelineName: "p", pipelinePath: "p.yaml", pipelineHash: "", params: "{}", status },
  });
  const job: PipelineRunJob = { uid, file: "/x/p.yaml", cwd: "/x", demo: true, workspaceId: "w", userId: "u1" };
  return { uid, job };
}
const fresh: JobContext = { takeover: false };

describe("the pipeline-run job", () => {
  it("runs a waiting run; skips one cancelled meanwhile", async () => {
    const a = await run();
    await handler(a.job, fresh);
    expect(executed).toEqual([a.uid]);
    const b = await run("cancelled");
    await handler(b.job, fresh);
    expect(executed).toEqual([a.uid]);
  });

  it("taken over after its worker died: failed with the reason, in its row and its room", async () => {
    const r = await run();
    await handler(r.job, { takeover: true });
    expect(executed).not.toContain(r.uid);
    expect(await db.pipelineRun.findUniqueOrThrow({ where: { uid: r.uid } })).toMatchObject({
      status: "failed",
      error: RUN_STOPPED.worker,
    });
    expect((await events.history(runRoom(r.uid))).at(-1)).toMatchObject({
      type: "error",
      payload: { message: RUN_STOPPED.worker },
    });
  });

  it("given up: failed saying so; a finished run keeps its status", async () => {
    const r = await run();
    await options.abandoned!(r.job, "job stalled more than allowable limit");
    expect((await db.pipelineRun.findUniqueOrThrow({ where: { uid: r.uid } })).error).toBe(RUN_STOPPED.abandoned);
    const done = await run("completed");
    await options.abandoned!(done.job, "job stalled more than allowable limit");
    expect((await db.pipelineRun.findUniqueOrThrow({ where: { uid: done.uid } })).status).toBe("completed");
  });

  it("a cancel signal from any node reaches the run service", async () => {
    await signals.publish(CANCEL_RUN_SIGNAL, { uid: "run-1" });
    expect(cancelled).toEqual(["run-1"]);
  });
});
