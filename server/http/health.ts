/**
 * /api/health (web nodes and workers alike): the database, Redis (when REDIS_URL is set) and the job
 * queue's counts. `down` (503) only when the database is unreachable — nothing works without it.
 * Redis unreachable is `degraded` (200): a web node still serves pages and its own sockets, a worker
 * carries on when Redis is back, so neither should be taken out of rotation or restarted for it.
 */
import type { Services } from "../context.ts";
import type { JobCounts } from "../jobs/queue.ts";
import type { Role } from "../process-role.ts";
import { version } from "../version.ts";

export interface Health {
  status: "ok" | "degraded" | "down";
  /** What this process does (argus start --role). */
  role: Role;
  db: "ok" | "unreachable";
  /** "off": no REDIS_URL (the embedded default). */
  redis: "ok" | "unreachable" | "off";
  /** Jobs of the whole install (BullMQ) or of this process (in-process); unreachable with Redis away. */
  queue: (JobCounts & { kind: "in-process" | "bullmq" }) | "unreachable";
  version: string;
}

const QUEUE_WAIT_MS = 1000;

export async function checkHealth(
  services: Pick<Services, "db" | "queue" | "redis">,
  role: Role = "all",
): Promise<Health> {
  const [db, redis, queue] = await Promise.all([
    services.db.$queryRawUnsafe("SELECT 1").then(
      () => "ok" as const,
      () => "unreachable" as const,
    ),
    services.redis
      ? services.redis.ping().then((ok) => (ok ? ("ok" as const) : ("unreachable" as const)))
      : ("off" as const),
    Promise.race([
      services.queue.counts().then((c) => ({ kind: services.queue.kind, ...c })),
      new Promise<"unreachable">((resolve) => setTimeout(() => resolve("unreachable"), QUEUE_WAIT_MS).unref()),
    ]).catch(() => "unreachable" as const),
  ]);
  const status = db !== "ok" ? "down" : redis === "unreachable" || queue === "unreachable" ? "degraded" : "ok";
  return { status, role, db, redis, queue, version };
}
