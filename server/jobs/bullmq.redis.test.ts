/**
 * The BullMQ job queue against a real Redis (REDIS_URL; skipped without it): jobs run on the node
 * that started its workers, not on one that only adds them; per-kind concurrency; counts; dedupe; a
 * job whose worker died is taken over once (takeover: true) and given up after a second death; a
 * payload in Redis that does not fit its kind's schema fails its job without running the handler.
 */
import { Queue, Worker } from "bullmq";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sayWhySkipped, testRedis } from "../../test/helpers/redis.ts";
import { openRedis, type RedisLink } from "../cluster/redis.ts";
import { createBullQueue } from "./bullmq.ts";
import type { JobContext, JobQueue } from "./queue.ts";

const log = pino({ level: "silent" });
const { redis: testServer, skip } = await testRedis("bullmq");
sayWhySkipped("server/jobs/bullmq.redis.test.ts", skip);

const LEASE_MS = 1000;
const links: RedisLink[] = [];
const queues: JobQueue[] = [];

async function node(): Promise<JobQueue> {
  const link = await openRedis(testServer!.settings, log);
  links.push(link);
  const q = createBullQueue({ redis: link, leaseMs: LEASE_MS, log });
  queues.push(q);
  return q;
}

afterAll(async () => {
  for (const q of queues) await q.close();
  for (const l of links) await l.close();
  await testServer?.cleanup();
});

describe.skipIf(!testServer)("the BullMQ job queue", () => {
  let web: JobQueue;
  let worker: JobQueue;
  const ran: { node: string; n: number; ctx: JobContext }[] = [];
  let active = 0;
  let peak = 0;

  beforeAll(async () => {
    [web, worker] = await Promise.all([node(), node()]);
    for (const [name, q] of [
      ["web", web],
      ["worker", worker],
    ] as const) {
      q.register(
        "knowledge.index",
        async ({ baseId }, ctx) => {
          const n = Number(baseId);
          active++;
          peak = Math.max(peak, active);
          await new Promise((r) => setTimeout(r, 30));
          active--;
          ran.push({ node: name, n, ctx });
        },
        { concurrency: 2 },
      );
    }
    await worker.start(); // the web node never starts its workers
  });

  it("runs jobs added on a web node on the worker node, two at a time, and counts them", async () => {
    for (let n = 0; n < 6; n++) await web.enqueue("knowledge.index", { baseId: String(n) });
    await web.idle();
    expect(ran.map((r) => r.n).sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(new Set(ran.map((r) => r.node))).toEqual(new Set(["worker"]));
    expect(ran.every((r) => r.ctx.takeover === false)).toBe(true);
    expect(peak).toBe(2);
    expect(await web.counts()).toEqual({ waiting: 0, active: 0, failed: 0 });
  });

  it("a dedupe key: one job waiting at a time, one more after a running one", async () => {
    const seen: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    for (const q of [web, worker])
      q.register("ask.thread", async ({ threadId: v }) => {
        seen.push(v);
        if (v === "first") await gate;
      });
    await web.enqueue("ask.thread", { threadId: "first" }, { dedupeKey: "base-1" });
    await expect.poll(() => seen).toEqual(["first"]);
    // While the first runs: both later adds collapse into one run after it, with the latest data.
    await web.enqueue("ask.thread", { threadId: "second" }, { dedupeKey: "base-1" });
    await web.enqueue("ask.thread", { threadId: "third" }, { dedupeKey: "base-1" });
    release();
    await web.idle();
    await new Promise((r) => setTimeout(r, 300));
    await web.idle();
    expect(seen).toEqual(["first", "third"]);
  });

  it("fails a job whose payload in Redis does not fit its kind's schema, without running it", async () => {
    const link = links[0]!;
    const raw = new Queue("knowledge.index", { connection: link.client, prefix: link.key("bull") });
    const before = ran.length;
    await raw.add("knowledge.index", { baseId: 7 });
    await expect.poll(async () => (await web.counts()).failed, { timeout: 10_000 }).toBe(1);
    expect(ran.length).toBe(before);
    const [failed] = await raw.getFailed();
    expect(failed?.failedReason).toMatch(/"knowledge.index" job's payload is not valid: baseId/);
    await raw.close();
  });
});

describe.skipIf(!testServer)("a worker that dies mid-job", () => {
  it("hands the job to another worker once (takeover), then gives it up and says so", async () => {
    const link = links[0] ?? (await openRedis(testServer!.settings, log));
    const prefix = link.key("bull");
    const hang = () => new Promise<void>(() => undefined);
    // A worker that takes the job and dies without a word (no lock renewal, nothing written back).
    const dying = async () => {
      const w = new Worker("review", hang, {
        connection: link.client,
        prefix,
        lockDuration: LEASE_MS,
        stalledInterval: LEASE_MS,
        maxStalledCount: 1,
      });
      await new Promise((r) => w.once("active", r));
      await w.close(true);
    };

    const survivor = await node();
    const takeovers: boolean[] = [];
    const abandoned: string[] = [];
    survivor.register(
      "review",
      async (_job, ctx) => {
        takeovers.push(ctx.takeover);
      },
      { abandoned: async ({ reviewId }, reason) => void abandoned.push(`${reviewId}: ${reason}`) },
    );

    // Once: the first worker dies, the survivor's stalled check hands the job on, with takeover: true.
    await survivor.enqueue("review", { reviewId: "a" });
    await dying();
    await survivor.start();
    await expect.poll(() => takeovers, { timeout: 10_000 }).toEqual([true]);
    await survivor.close();

    // Twice: it is given up, and the kind's hook records why.
    const watcher = await node();
    watcher.register("review", async () => void takeovers.push(true), {
      abandoned: async ({ reviewId }, reason) => void abandoned.push(`${reviewId}: ${reason}`),
    });
    await watcher.enqueue("review", { reviewId: "b" });
    await dying(); // dies with it
    const second = new Worker("review", hang, {
      connection: link.client,
      prefix,
      lockDuration: LEASE_MS,
      stalledInterval: LEASE_MS,
      maxStalledCount: 1,
    });
    await new Promise((r) => second.once("active", r)); // taken over … and dies again
    await second.close(true);
    await watcher.start();
    await expect.poll(() => abandoned, { timeout: 15_000 }).toEqual(["b: job stalled more than allowable limit"]);
    expect(takeovers).toEqual([true]); // job b never ran to completion anywhere
    expect((await watcher.counts()).failed).toBe(1);
  }, 40_000);
});
