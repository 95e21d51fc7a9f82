import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openMigratedDb } from "../../test/helpers/db.ts";
import type { Db } from "../db/client.ts";
import { createEventBus } from "../events/bus.ts";
import { captureLog } from "../../test/helpers/log.ts";
import { TEST_BUILTINS, tempDir } from "./engine/test-support.ts";
import { runRoom } from "../shared/rooms.ts";
import { defineServer } from "./servers/define.ts";
import { createRunService, RUN_INTERRUPTED } from "./runs.ts";

let db: Db;
let close: () => Promise<void>;
beforeAll(async () => ({ db, close } = await openMigratedDb()));
afterAll(() => close());

const log = pino({ level: "silent" });

describe("run service", () => {
  it("records a completed run and its events, which replay from the bus in order", async () => {
    const t = tempDir({ "pipes/p.yaml": "servers:\n  toy: servers/toy\npipeline:\n- toy.seed\n- toy.stream\n" });
    try {
      const events = createEventBus({ db, log });
      const runs = createRunService({ db, events, log, engine: { builtins: TEST_BUILTINS } });
      const { uid, done } = await runs.start({ file: "pipes/p.yaml", cwd: t.dir, createdById: "u1" });
      expect((await db.pipelineRun.findUnique({ where: { uid } }))?.status).toBeDefined();
      const record = await done;
      expect(record).toMatchObject({
        uid,
        status: "completed",
        pipelineName: "p",
        pipelinePath: "pipes/p.yaml",
        error: null,
      });
      expect(record.pipelineHash).toMatch(/^[0-9a-f]{64}$/);
      expect(record.params).toEqual({ toy: { n: 3, prefix: ">" } });
      expect(record.outputs).toEqual({
        steps: 2,
        lastStep: "toy.stream",
        summary: "Output Keys: ['ans_ls']",
        answer: "Hello",
      });
      expect(record.memoryFile).toMatch(/output\/memory__p_\d{8}_\d{6}\.json$/);
      expect(record.finishedAt).toBeInstanceOf(Date);

      const history = await runs.history(uid);
      expect(history.map((e) => e.type)).toEqual([
        "step_start",
        "step_end",
        "step_start",
        "token",
        "step_end",
        "final",
      ]);
      // Token deltas are merged into one stored event; the spec payloads are kept otherwise.
      expect(history[3]!.payload).toEqual({ text: "Hello", step: "toy.stream", is_final: true });
      expect(history[0]!.payload).toEqual({ name: "toy.seed", depth: 0 });
      expect(history.every((e) => e.room === runRoom(uid))).toBe(true);
      expect((await runs.list()).map((r) => r.uid)).toContain(uid);
    } finally {
      t.cleanup();
    }
  });

  it("records a failed run with its error and the error event", async () => {
    const t = tempDir({ "p.yaml": "servers:\n  toy: servers/toy\npipeline:\n- toy.seed\n- toy.boom\n" });
    try {
      const runs = createRunService({
        db,
        events: createEventBus({ db, log }),
        log,
        engine: { builtins: TEST_BUILTINS },
      });
      const record = await runs.run({ file: "p.yaml", cwd: t.dir });
      expect(record).toMatchObject({
        status: "failed",
        error: "Step toy.boom failed: the toy exploded",
        memoryFile: null,
        outputs: null,
      });
      const history = await runs.history(record.uid);
      expect(history.at(-1)).toMatchObject({
        type: "error",
        payload: { message: "Step toy.boom failed: the toy exploded" },
      });
    } finally {
      t.cleanup();
    }
  });

  it("a step that crashes: the record and the room get a sentence and a reference, the log the detail", async () => {
    const leaky = defineServer({
      name: "leaky",
      defaults: {},
      tools: {
        crash: {
          params: ["q_ls"],
          output: "q_ls->ans_ls",
          run: () => {
            throw new Error("ENOENT: no such file or directory, open '/root/secret/x'");
          },
        },
      },
    });
    const t = tempDir({
      "p.yaml": "servers:\n  toy: servers/toy\n  leaky: servers/leaky\npipeline:\n- toy.seed\n- leaky.crash\n",
    });
    try {
      const captured = captureLog();
      const runs = createRunService({
        db,
        events: createEventBus({ db, log }),
        log: captured.log,
        engine: { builtins: { ...TEST_BUILTINS, leaky } },
      });
      const record = await runs.run({ file: "p.yaml", cwd: t.dir });
      expect(record.status).toBe("failed");
      const reference = /reference: ([0-9a-f]{8})\.$/.exec(record.error ?? "")?.[1];
      expect(record.error).toMatch(/^Something went wrong while running step leaky\.crash\. /);
      expect(reference).toBeDefined();
      const history = JSON.stringify(await runs.history(record.uid));
      expect(history).toContain(reference);
      for (const leak of ["/root/secret", "ENOENT", "    at "]) {
        expect(record.error).not.toContain(leak);
        expect(history).not.toContain(leak);
      }
      const errors = (await runs.history(record.uid)).filter((e) => e.type === "error");
      expect(errors).toHaveLength(1);
      const logged = captured.lines().find((l) => l.reference === reference);
      expect(logged).toMatchObject({ run: record.uid, err: { type: "StepError" } });
      // The stack, down to the tool's own error and its path.
      expect((logged!.err as { stack: string }).stack).toMatch(
        /caused by: Error: ENOENT.*'\/root\/secret\/x'\n {4}at /,
      );
    } finally {
      t.cleanup();
    }
  });

  it("cancels a running run", async () => {
    const t = tempDir({
      "p.yaml":
        "servers:\n  toy: servers/toy\npipeline:\n- toy.seed\n- loop:\n    times: 2000\n    steps:\n    - toy.nap\n",
    });
    try {
      const events = createEventBus({ db, log });
      const runs = createRunService({ db, events, log, engine: { builtins: TEST_BUILTINS } });
      const { uid, done } = await runs.start({ file: "p.yaml", cwd: t.dir });
      let cancelled: boolean | undefined;
      events.subscribe(runRoom(uid), (e) => {
        if (e.type === "step_end" && (e.payload as { name: string }).name === "toy.nap") cancelled ??= runs.cancel(uid);
      });
      const record = await done;
      expect(cancelled).toBe(true);
      expect(record).toMatchObject({ status: "cancelled", error: "The run was cancelled" });
      expect((await runs.history(uid)).filter((e) => e.type === "step_end").length).toBeLessThan(50);
      expect(runs.cancel(uid)).toBe(false);
      await expect(runs.get("nope")).rejects.toThrow("No pipeline run nope.");
    } finally {
      t.cleanup();
    }
  });

  it("shutdown: a run that outlasts the grace time is stopped and recorded as interrupted before it resolves", async () => {
    const t = tempDir({
      "p.yaml":
        "servers:\n  toy: servers/toy\npipeline:\n- toy.seed\n- loop:\n    times: 100000\n    steps:\n    - toy.nap\n",
    });
    try {
      const events = createEventBus({ db, log });
      const runs = createRunService({ db, events, log, engine: { builtins: TEST_BUILTINS } });
      const { uid } = await runs.start({ file: "p.yaml", cwd: t.dir });
      const started = Date.now();
      expect(await runs.shutdown(200)).toEqual({ stopped: 1 });
      expect(Date.now() - started).toBeLessThan(10_000);
      // Its end is written by the time shutdown resolves: the database may close after it.
      expect(await runs.get(uid)).toMatchObject({ status: "failed", error: RUN_INTERRUPTED });
      // Nothing running: shutdown has nothing to wait for.
      expect(await runs.shutdown(200)).toEqual({ stopped: 0 });
    } finally {
      t.cleanup();
    }
  });
});
