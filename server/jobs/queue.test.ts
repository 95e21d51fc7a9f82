import pino from "pino";
import { describe, expect, it } from "vitest";
import { createInProcessQueue } from "./queue.ts";

const log = pino({ level: "silent" });

describe("in-process job queue", () => {
  it("runs jobs in order with bounded concurrency and survives a failing job", async () => {
    const q = createInProcessQueue({ concurrency: 2, log });
    let active = 0;
    let peak = 0;
    const done: number[] = [];
    q.register<number>("work", async (n) => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, 10));
      active--;
      if (n === 2) throw new Error("boom");
      done.push(n);
    });
    for (let i = 0; i < 6; i++) await q.enqueue("work", i);
    await q.idle();
    expect(peak).toBe(2);
    expect(done.sort()).toEqual([0, 1, 3, 4, 5]);
  });

  it("close() waits for the running job and drops the waiting ones", async () => {
    const q = createInProcessQueue({ concurrency: 1, log });
    const ran: number[] = [];
    q.register<number>("work", async (n) => {
      await new Promise((r) => setTimeout(r, 20));
      ran.push(n);
    });
    q.enqueue("work", 1);
    q.enqueue("work", 2);
    await new Promise((r) => setTimeout(r, 5));
    await q.close();
    expect(ran).toEqual([1]);
    await expect(q.enqueue("work", 3)).rejects.toThrow(/shut down/);
  });
});

describe("per-kind limits", () => {
  it("runs at most perKind[kind] jobs of a kind while other kinds use the remaining slots", async () => {
    const q = createInProcessQueue({ concurrency: 3, perKind: { heavy: 1 }, log });
    const active = { heavy: 0, light: 0 };
    const peak = { heavy: 0, light: 0 };
    const order: string[] = [];
    for (const kind of ["heavy", "light"] as const) {
      q.register<number>(kind, async (n) => {
        active[kind]++;
        peak[kind] = Math.max(peak[kind], active[kind]);
        await new Promise((r) => setTimeout(r, 15));
        order.push(`${kind}${n}`);
        active[kind]--;
      });
    }
    q.enqueue("heavy", 1);
    q.enqueue("heavy", 2);
    q.enqueue("light", 1);
    q.enqueue("light", 2);
    await q.idle();
    expect(peak).toEqual({ heavy: 1, light: 2 });
    // The light jobs did not wait behind the second heavy one.
    expect(order.indexOf("light2")).toBeLessThan(order.indexOf("heavy2"));
    await q.close();
  });
});
