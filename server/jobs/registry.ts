/**
 * The one place job handlers are registered: the composition root (server/context.ts) builds a
 * `JobRegistrations` — a handler (and its options) for every kind of ./kinds.ts, checked complete at
 * compile time — and hands it to `registerJobs`. Features export their handlers; none registers itself.
 */
import { JOB_KINDS, type JobKind, type JobMap } from "./kinds.ts";
import type { JobHandler, JobKindOptions, JobQueue } from "./queue.ts";

export interface JobRegistration<K extends JobKind> {
  handler: JobHandler<JobMap[K]>;
  options?: JobKindOptions<JobMap[K]>;
}

export type JobRegistrations = { [K in JobKind]: JobRegistration<K> };

export function registerJobs(queue: JobQueue, jobs: JobRegistrations): void {
  for (const kind of JOB_KINDS) register(queue, kind, jobs);
}

function register<K extends JobKind>(queue: JobQueue, kind: K, jobs: JobRegistrations): void {
  const job: JobRegistration<K> = jobs[kind];
  queue.register(kind, job.handler, job.options);
}
