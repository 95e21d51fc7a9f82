/**
 * Background jobs, one interface with two implementations:
 *  - in-process (the embedded default): handlers run with bounded concurrency inside this process;
 *    jobs live in memory, so a restart loses them and start-up's "interrupted" sweep (server/main.ts)
 *    looks at the database for the ones it cut off;
 *  - BullMQ on Redis (REDIS_URL, ./bullmq.ts): jobs are durable, any worker node runs them under a
 *    lease it renews; a job whose worker died is handed to another worker once (`takeover`, the
 *    handler decides whether running it again is safe) and given up after a second time (`abandoned`).
 * Jobs record their own state in the database either way. Every kind and its payload is declared in
 * ./kinds.ts (`JobMap`); payloads are checked against their schema when added.
 */
import type { Logger } from "../logger.ts";
import { parseJobPayload, type JobKind, type JobMap } from "./kinds.ts";

export type { JobKind, JobMap } from "./kinds.ts";

export interface JobContext {
  /**
   * The job ran before on a worker that stopped before it finished (its lease ran out): the
   * database may show it half done. Never true in-process (a restart's sweep handles that case).
   */
  takeover: boolean;
}

export type JobHandler<P> = (payload: P, ctx: JobContext) => Promise<void>;

export interface JobKindOptions<P> {
  /** Jobs of this kind one worker process runs at once (BullMQ; in-process limits are the queue's own). */
  concurrency?: number;
  /** The job was given up (its workers stopped twice while running it): record why, for its users. */
  abandoned?: (payload: P, reason: string) => Promise<void>;
}

export interface EnqueueOptions {
  /**
   * Jobs with the same key never run at once: one added while one is waiting rides along with it,
   * one added while one runs runs once after it (BullMQ; in-process callers keep their own books).
   */
  dedupeKey?: string;
}

export interface JobCounts {
  waiting: number;
  active: number;
  failed: number;
}

export interface JobQueue {
  /** "in-process" or "bullmq". */
  readonly kind: "in-process" | "bullmq";
  /** Whether jobs outlive this process (then no start-up sweep: another worker carries on). */
  readonly durable: boolean;
  /** Once per kind, at start-up, by the composition root (./registry.ts `registerJobs`). */
  register<K extends JobKind>(kind: K, handler: JobHandler<JobMap[K]>, options?: JobKindOptions<JobMap[K]>): void;
  /**
   * Resolves once the job is accepted (BullMQ: written to Redis, or held until Redis is back). The
   * payload is checked against its kind's schema first (JobPayloadError when it does not fit).
   */
  enqueue<K extends JobKind>(kind: K, payload: JobMap[K], options?: EnqueueOptions): Promise<void>;
  /** Starts taking jobs (a web-only node never does; the in-process queue always runs them). */
  start(): Promise<void>;
  counts(): Promise<JobCounts>;
  /** Resolves when nothing is running or waiting (tests, graceful shutdown). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * `concurrency` bounds all jobs; `perKind` bounds some kinds further (CPU-heavy imports one at a
 * time, while model-bound reviews, which mostly wait on the network, run beside them).
 */
export function createInProcessQueue(opts: {
  concurrency: number;
  perKind?: Partial<Record<JobKind, number>>;
  log: Logger;
}): JobQueue {
  const handlers = new Map<string, JobHandler<unknown>>();
  const waiting: { kind: JobKind; payload: unknown }[] = [];
  const runningByKind = new Map<JobKind, number>();
  let running = 0;
  let failed = 0;
  let closed = false;
  let idleWaiters: (() => void)[] = [];

  function pump() {
    while (!closed && running < opts.concurrency) {
      const at = waiting.findIndex((j) => (runningByKind.get(j.kind) ?? 0) < (opts.perKind?.[j.kind] ?? Infinity));
      if (at < 0) break;
      const [job] = waiting.splice(at, 1) as [{ kind: JobKind; payload: unknown }];
      const handler = handlers.get(job.kind);
      if (!handler) {
        opts.log.error({ kind: job.kind }, "no handler registered for job kind");
        continue;
      }
      running++;
      runningByKind.set(job.kind, (runningByKind.get(job.kind) ?? 0) + 1);
      handler(job.payload, { takeover: false })
        .catch((err: unknown) => {
          failed++;
          opts.log.error({ err, kind: job.kind }, "job failed");
        })
        .finally(() => {
          running--;
          runningByKind.set(job.kind, runningByKind.get(job.kind)! - 1);
          pump();
        });
    }
    if (running === 0 && waiting.length === 0) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  return {
    kind: "in-process",
    durable: false,
    register(kind, handler) {
      handlers.set(kind, handler as JobHandler<unknown>);
    },
    async enqueue(kind, payload) {
      if (closed) throw new Error("The job queue is shut down.");
      waiting.push({ kind, payload: parseJobPayload(kind, payload) });
      queueMicrotask(pump);
    },
    start: async () => undefined,
    counts: async () => ({ waiting: waiting.length, active: running, failed }),
    idle() {
      if (running === 0 && waiting.length === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    async close() {
      closed = true;
      waiting.length = 0;
      if (running > 0) await new Promise<void>((resolve) => idleWaiters.push(resolve));
    },
  };
}
