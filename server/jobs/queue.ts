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

export function createInProcessQueue(opts: { concurrency: number; log: Logger }): JobQueue {
  const handlers = new Map<string, JobHandler<unknown>>();
  const waiting: { kind: string; payload: unknown }[] = [];
  let running = 0;
  let closed = false;
  let idleWaiters: (() => void)[] = [];

  function pump() {
    while (!closed && running < opts.concurrency && waiting.length > 0) {
      const job = waiting.shift()!;
      const handler = handlers.get(job.kind);
      if (!handler) {
        opts.log.error({ kind: job.kind }, "no handler registered for job kind");
        continue;
      }
      running++;
      handler(job.payload)
        .catch((err: unknown) => opts.log.error({ err, kind: job.kind }, "job failed"))
        .finally(() => {
          running--;
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
