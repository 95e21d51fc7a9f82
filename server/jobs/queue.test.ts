import pino from "pino";
import { describe, expect, it } from "vitest";
import { JobPayloadError, type JobMap } from "./kinds.ts";
import { createInProcessQueue } from "./queue.ts";

const log = pino({ level: "silent" });

describe("in-process job queue", () => {
  it("runs jobs in order with bounded concurrency and survives a failing job", async () => {
    const q = createInProcessQueue({ concurrency: 2, log });
    let active = 0;
    let peak = 0;
    const done: number[] = [];
    q.register("knowledge.index", async ({ baseId }) => {
      const n = Number(baseId);
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, 10));
      active--;
      if (n === 2) throw new Error("boom");
      done.push(n);
    });
    for (let i = 0; i < 6; i++) await q.enqueue("knowledge.index", { baseId: String(i) });
    await q.idle();
    expect(peak).toBe(2);
    expect(done.sort()).toEqual([0, 1, 3, 4, 5]);
  });

  it("close() waits for the running job and drops the waiting ones", async () => {
    const q = createInProcessQueue({ concurrency: 1, log });
    const ran: number[] = [];
    q.register("knowledge.index", async ({ baseId }) => {
      await new Promise((r) => setTimeout(r, 20));
      ran.push(Number(baseId));
    });
    void q.enqueue("knowledge.index", { baseId: "1" });
    void q.enqueue("knowledge.index", { baseId: "2" });
    await new Promise((r) => setTimeout(r, 5));
    await q.close();
    expect(ran).toEqual([1]);
    await expect(q.enqueue("knowledge.index", { baseId: "3" })).rejects.toThrow(/shut down/);
  });

  it("refuses a payload that does not fit its kind's schema, saying what is wrong, and runs nothing", async () => {
    const q = createInProcessQueue({ concurrency: 1, log });
    const ran: string[] = [];
    q.register("review", async ({ reviewId }) => void ran.push(reviewId));
    const bad = { reviewId: 42 } as unknown as JobMap["review"];
    await expect(q.enqueue("review", bad)).rejects.toThrow(JobPayloadError);
    await expect(q.enqueue("review", bad)).rejects.toThrow(/"review" job's payload is not valid: reviewId/);
    const unknownKind = "no.such.kind" as "review";
    await expect(q.enqueue(unknownKind, { reviewId: "r1" })).rejects.toThrow(/"no.such.kind" is not a job kind/);
    await q.enqueue("review", { reviewId: "r2" });
    await q.idle();
    expect(ran).toEqual(["r2"]);
    await q.close();
  });
});

describe("per-kind limits", () => {
  it("runs at most perKind[kind] jobs of a kind while other kinds use the remaining slots", async () => {
    // "review" is the limited (heavy) kind here, "ask.thread" the light one.
    const q = createInProcessQueue({ concurrency: 3, perKind: { review: 1 }, log });
    const active = { heavy: 0, light: 0 };
    const peak = { heavy: 0, light: 0 };
    const order: string[] = [];
    const job = (kind: "heavy" | "light", n: string) => async () => {
      active[kind]++;
      peak[kind] = Math.max(peak[kind], active[kind]);
      await new Promise((r) => setTimeout(r, 15));
      order.push(`${kind}${n}`);
      active[kind]--;
    };
    q.register("review", ({ reviewId }) => job("heavy", reviewId)());
    q.register("ask.thread", ({ threadId }) => job("light", threadId)());
    void q.enqueue("review", { reviewId: "1" });
    void q.enqueue("review", { reviewId: "2" });
    void q.enqueue("ask.thread", { threadId: "1" });
    void q.enqueue("ask.thread", { threadId: "2" });
    await q.idle();
    expect(peak).toEqual({ heavy: 1, light: 2 });
    // The light jobs did not wait behind the second heavy one.
    expect(order.indexOf("light2")).toBeLessThan(order.indexOf("heavy2"));
    await q.close();
  });
});
