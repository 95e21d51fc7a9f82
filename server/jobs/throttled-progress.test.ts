import { describe, expect, it } from "vitest";
import { throttledProgress } from "./throttled-progress.ts";

describe("throttledProgress", () => {
  it("writes at most once per interval (forced writes always), in order, and nothing after settle", async () => {
    const written: number[] = [];
    let release!: () => void;
    const slowFirst = new Promise<void>((r) => (release = r));
    const report = throttledProgress(
      async (n: number) => {
        if (n === 1) await slowFirst; // a slow write must not let a later one overtake it
        written.push(n);
      },
      () => undefined,
      10_000,
    );
    report(1);
    report(2); // within the interval: dropped
    report(3, true); // forced: queued behind 1
    release();
    await report.settle();
    report(4, true); // after settle: never written
    await new Promise((r) => setTimeout(r, 10));
    expect(written).toEqual([1, 3]);
  });

  it("a failed write is reported and does not stop the next one", async () => {
    const errors: unknown[] = [];
    const written: string[] = [];
    const report = throttledProgress(
      async (s: string) => {
        if (s === "bad") throw new Error("db down");
        written.push(s);
      },
      (err) => errors.push(err),
      0,
    );
    report("bad", true);
    report("good", true);
    await report.settle();
    expect(written).toEqual(["good"]);
    expect(errors).toHaveLength(1);
  });
});
