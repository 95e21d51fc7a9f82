/**
 * The job queue on BullMQ (REDIS_URL): one BullMQ queue per job kind, under `<REDIS_PREFIX>:bull`.
 * Every node can add jobs; nodes that run jobs (`--role worker` or `all`) start one BullMQ worker per
 * kind with the kind's concurrency.
 *
 * The lease: a worker holds a lock on each job it runs for JOB_LEASE_SECONDS and renews it at half
 * that. A worker that dies (SIGKILL, a lost machine) stops renewing; another worker's stalled check
 * (every lease) finds the job without a lock and hands it out again once — the handler sees
 * `takeover: true` and decides whether running it again is safe (server/review/job.ts fails an agent
 * review instead: it cannot resume a model conversation and would spend its budget twice). A job
 * that stalls a second time is failed by BullMQ, and the kind's `abandoned` hook records why.
 *
 * Handlers record their own failures in the database and do not throw; a job is attempted once
 * (no automatic retry of a failed job: a failure has a reason a user can act on). A payload is
 * checked against its kind's schema (./kinds.ts) when added and again when taken from Redis.
 */
import { Queue, Worker, type Job } from "bullmq";
import type { RedisLink } from "../cluster/redis.ts";
import type { Logger } from "../logger.ts";
import { parseJobPayload, type JobKind } from "./kinds.ts";
import type { EnqueueOptions, JobCounts, JobHandler, JobKindOptions, JobQueue } from "./queue.ts";

/** Kept for a day (completed) or a week (failed), at most this many, for the health counts and debugging. */
const KEEP = { completed: { age: 24 * 3600, count: 1000 }, failed: { age: 7 * 24 * 3600, count: 5000 } };
/** How long adding a job may wait for Redis before the request goes on (the add is sent when it is back). */
const ADD_WAIT_MS = 3000;
/** BullMQ's reason for a job that stalled more often than allowed. */
const STALLED_TOO_OFTEN = /stalled more than allowable limit/;

interface Kind {
  handler: JobHandler<unknown>;
  options: JobKindOptions<unknown>;
  queue: Queue;
  worker?: Worker;
}

export function createBullQueue(opts: { redis: RedisLink; leaseMs: number; log: Logger }): JobQueue {
  const { redis, log } = opts;
  const prefix = redis.key("bull");
  const kinds = new Map<JobKind, Kind>();
  let closed = false;
  let started = false;

  function kindOf(name: JobKind): Kind {
    const k = kinds.get(name);
    if (!k) throw new Error(`No job handler registered for "${name}".`);
    return k;
  }

  function startWorker(name: JobKind, k: Kind) {
    const worker = new Worker(
      name,
      async (job: Job) => {
        // Redis is outside this process: a payload that does not fit fails the job, saying why.
        await k.handler(parseJobPayload(name, job.data), { takeover: job.stalledCounter > 0 });
      },
      {
        connection: redis.client,
        prefix,
        concurrency: k.options.concurrency ?? 1,
        lockDuration: opts.leaseMs,
        stalledInterval: opts.leaseMs,
        maxStalledCount: 1,
        removeOnComplete: KEEP.completed,
        removeOnFail: KEEP.failed,
      },
    );
    worker.on("error", (err) => log.warn({ err: err.message, kind: name }, "job worker error"));
    worker.on("stalled", (jobId) =>
      log.warn({ kind: name, jobId }, "a job's worker stopped while running it; another worker takes it up"),
    );
    worker.on("failed", (job, err) => {
      if (!job) return;
      if (!STALLED_TOO_OFTEN.test(err.message)) {
        log.error({ err, kind: name, jobId: job.id }, "job failed");
        return;
      }
      log.error({ kind: name, jobId: job.id }, "a job's workers stopped twice while running it; it was given up");
      k.options
        .abandoned?.(job.data, err.message)
        .catch((e: unknown) => log.error({ err: e, kind: name }, "could not record a job given up"));
    });
    k.worker = worker;
  }

  async function counts(): Promise<JobCounts> {
    const total: JobCounts = { waiting: 0, active: 0, failed: 0 };
    for (const k of kinds.values()) {
      const c = await k.queue.getJobCounts("waiting", "prioritized", "delayed", "active", "failed");
      total.waiting += (c.waiting ?? 0) + (c.prioritized ?? 0) + (c.delayed ?? 0);
      total.active += c.active ?? 0;
      total.failed += c.failed ?? 0;
    }
    return total;
  }

  return {
    kind: "bullmq",
    durable: true,
    register(name, handler, options = {}) {
      if (kinds.has(name)) throw new Error(`A job handler for "${name}" is registered already.`);
      const k: Kind = {
        handler: handler as JobHandler<unknown>,
        options: options as JobKindOptions<unknown>,
        queue: new Queue(name, { connection: redis.client, prefix }),
      };
      k.queue.on("error", (err) => log.warn({ err: err.message, kind: name }, "job queue error"));
      kinds.set(name, k);
      if (started) startWorker(name, k);
    },
    async enqueue(name, payload, options: EnqueueOptions = {}) {
      if (closed) throw new Error("The job queue is shut down.");
      const added = kindOf(name).queue.add(name, parseJobPayload(name, payload), {
        removeOnComplete: KEEP.completed,
        removeOnFail: KEEP.failed,
        ...(options.dedupeKey ? { deduplication: { id: options.dedupeKey, keepLastIfActive: true } } : {}),
      });
      // While Redis is away the add waits in the connection's queue and goes out when it is back:
      // the caller's request does not hang on it.
      const late = await Promise.race([
        added.then(() => false),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(true), ADD_WAIT_MS).unref()),
      ]);
      if (late) {
        log.warn({ kind: name }, "Redis is slow or away: the job is sent when it answers");
        added.catch((err: unknown) => log.error({ err, kind: name }, "a job could not be added"));
      }
    },
    async start() {
      if (started) return;
      started = true;
      for (const [name, k] of kinds) startWorker(name, k);
      await Promise.all([...kinds.values()].map((k) => k.worker!.waitUntilReady()));
    },
    counts,
    async idle() {
      for (;;) {
        const c = await counts();
        if (c.waiting === 0 && c.active === 0) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async close() {
      // A worker takes no new job and lets its running ones finish; until they have, they may still
      // add jobs (a thread's answers left waiting by a shutdown go back to the queue for another
      // worker). The queues only hold connections.
      await Promise.all([...kinds.values()].map((k) => k.worker?.close()));
      closed = true;
      await Promise.all([...kinds.values()].map((k) => k.queue.close()));
    },
  };
}
