/**
 * Background jobs. The in-process queue runs handlers with bounded concurrency inside the web
 * process (the embedded default); a BullMQ implementation behind the same interface comes with
 * REDIS_URL. Jobs record their own state in the database, so a restart can tell which were cut off.
 */
import type { Logger } from "../logger.ts";

export type JobHandler<P> = (payload: P) => Promise<void>;

export interface JobQueue {
  register<P>(kind: string, handler: JobHandler<P>): void;
  enqueue<P>(kind: string, payload: P): void;
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
  perKind?: Record<string, number>;
  log: Logger;
}): JobQueue {
  const handlers = new Map<string, JobHandler<unknown>>();
  const waiting: { kind: string; payload: unknown }[] = [];
  const runningByKind = new Map<string, number>();
  let running = 0;
  let closed = false;
  let idleWaiters: (() => void)[] = [];

  function pump() {
    while (!closed && running < opts.concurrency) {
      const at = waiting.findIndex((j) => (runningByKind.get(j.kind) ?? 0) < (opts.perKind?.[j.kind] ?? Infinity));
      if (at < 0) break;
      const [job] = waiting.splice(at, 1) as [{ kind: string; payload: unknown }];
      const handler = handlers.get(job.kind);
      if (!handler) {
        opts.log.error({ kind: job.kind }, "no handler registered for job kind");
        continue;
      }
      running++;
      runningByKind.set(job.kind, (runningByKind.get(job.kind) ?? 0) + 1);
      handler(job.payload)
        .catch((err: unknown) => opts.log.error({ err, kind: job.kind }, "job failed"))
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
    register(kind, handler) {
      handlers.set(kind, handler as JobHandler<unknown>);
    },
    enqueue(kind, payload) {
      if (closed) throw new Error("The job queue is shut down.");
      waiting.push({ kind, payload });
      queueMicrotask(pump);
    },
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
