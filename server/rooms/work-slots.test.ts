import { describe, expect, it } from "vitest";
import { RateLimited } from "../lib/rate-limit.ts";
import { createWorkSlots, Slots } from "./work-slots.ts";

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

describe("work slots", () => {
  it("holds at most max at once, lines up maxWaiting more, refuses the rest at once", async () => {
    const slots = new Slots(2, 1);
    const a = await slots.acquire();
    const b = await slots.acquire();
    let cGot = false;
    const c = slots.acquire().then((r) => ((cGot = true), r));
    expect(await slots.acquire()).toBeNull();
    await Promise.resolve();
    expect(cGot).toBe(false);
    a!();
    a!(); // a second release changes nothing
    const release = await c;
    expect(slots.busy).toBe(2);
    b!();
    release!();
    expect(slots.busy).toBe(0);
  });

  it("a socket's reads beyond its share are refused with when to retry; other sockets still read", async () => {
    const reads = createWorkSlots({ perSocket: 1, waitingPerSocket: 0, perNode: 4, waitingPerNode: 4 }, "reads");
    const gate = deferred();
    const first = reads.run("s1", () => gate.promise);
    await expect(reads.run("s1", async () => "no")).rejects.toBeInstanceOf(RateLimited);
    await expect(reads.run("s2", async () => "yes")).resolves.toBe("yes");
    gate.resolve();
    await first;
    await expect(reads.run("s1", async () => "again")).resolves.toBe("again");
  });

  it("the node's cap holds across sockets; a failed read frees its slot", async () => {
    const reads = createWorkSlots({ perSocket: 4, waitingPerSocket: 4, perNode: 1, waitingPerNode: 0 }, "reads");
    const gate = deferred();
    const first = reads.run("s1", () => gate.promise);
    await expect(reads.run("s2", async () => "no")).rejects.toThrow(/Too many reads/);
    gate.resolve();
    await first;
    await expect(reads.run("s2", () => Promise.reject(new Error("db")))).rejects.toThrow("db");
    await expect(reads.run("s3", async () => "ok")).resolves.toBe("ok");
  });
});
