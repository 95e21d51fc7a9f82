import type { Services } from "./context.ts";
import { version } from "./version.ts";

export interface Health {
  status: "ok" | "degraded";
  db: "ok" | "unreachable";
  version: string;
}

export async function checkHealth(services: Services): Promise<Health> {
  const db = await services.db.$queryRawUnsafe("SELECT 1").then(
    () => "ok" as const,
    () => "unreachable" as const,
  );
  return { status: db === "ok" ? "ok" : "degraded", db, version };
}
