/**
 * What one Argus process does (`argus start --role`, docs/deploy.md): all, web or worker. Its own
 * module so that main.ts, the HTTP routes and the health check all read it without importing each other.
 */
import type { Config } from "./config.ts";

export const ROLES = ["all", "web", "worker"] as const;
export type Role = (typeof ROLES)[number];

/** Why this configuration cannot run the role, or null. */
export function roleRefusal(role: Role, config: Config): string | null {
  if (role === "all") return null;
  if (!config.redis)
    return `--role ${role} needs REDIS_URL: without Redis, jobs run in the process that starts them and events reach only its own sockets. Set REDIS_URL, or use --role all.`;
  if (config.db.provider !== "postgres")
    return `--role ${role} needs PostgreSQL (DATABASE_URL=postgres://…): every node must use one shared database, and a SQLite file belongs to one process.`;
  return null;
}
