/**
 * The pipeline-run job's own decisions (its handler called directly): a run cancelled while it waited
 * is skipped; a run handed out again after its worker died fails with the reason (its model calls
 * cost money, its memory file would mix two runs); a given-up one says so; a cancel signal reaches
 * the run service of the process that runs it; a finished run's folder is tidied by the worker.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openMigratedDb } from "../../../test/helpers/db.ts";
import { createLocalSignals } from "../../cluster/signals.ts";
import type { Db } from "../../db/client.ts";
import { createEventBus } from "../../events/bus.ts";
import type { JobContext, JobHandler, JobKindOptions } from "../../jobs/queue.ts";
import { runRoom } from "../../shared/rooms.ts";
import type { RunService } from "../runs.ts";
import { CANCEL_RUN_SIGNAL, createRunJob, RUN_STOPPED, type PipelineRunJob } from "./run-job.ts";

const log = pino({ level: "silent" });
let db: Db;
let close: () => Promise<void>;
let handler: JobHandler<PipelineRunJob>;
let options: JobKindOptions<PipelineRunJob>;
const executed: string[] = [];
const cancelled: string[] = [];
const signals = createLocalSignals(log);
let events: ReturnType<typeof createEventBus>;
const root = mkdtempSync(path.join(tmpdir(), "argus-run-job-"));
/** The memory file each run's stand-in engine "wrote" (inside its folder), or none. */
const memoryOf = new Map<string, string>();

beforeAll(async () => {
  ({ db, close } = await openMigratedDb());
  events = createEventBus({ db, log });
  const runs = {
    runQueued: async (uid: string) => {
      executed.push(uid);
      return { uid, memoryFile: memoryOf.get(uid) ?? null };
    },
    cancel: (uid: string) => cancelled.push(uid) > 0,
  } as unknown as RunService;
  const job = createRunJob({ db, events, signals, runs, box: { open: (s) => s }, log, root });
  handler = job.handler;
  options = job.options!;
});
afterAll(async () => {
  await close();
  rmSync(root, { recursive: true, force: true });
});

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
    mkdirSync(path.join(root, b.uid));
    await handler(b.job, fresh);
    expect(executed).toEqual([a.uid]);
    expect(existsSync(path.join(root, b.uid))).toBe(false);
  });

  it("a finished run's folder goes; its memory file is kept where the run page reads it", async () => {
    const r = await run();
    const dir = path.join(root, r.uid);
    mkdirSync(path.join(dir, "output"), { recursive: true });
    const memory = path.join(dir, "output", "memory.json");
    writeFileSync(memory, "[]");
    memoryOf.set(r.uid, memory);
    await handler(r.job, fresh);
    expect(existsSync(dir)).toBe(false);
    const row = await db.pipelineRun.findUniqueOrThrow({ where: { uid: r.uid } });
    expect(row.memoryFile).toBe(path.join(root, "memory", `${r.uid}.json`));
    expect(readFileSync(row.memoryFile!, "utf8")).toBe("[]");
    expect(row.status).toBe("running"); // the run service records its end; the job only tidies
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
