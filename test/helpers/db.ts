/**
 * A throwaway database per test file, on whichever provider the environment selects — exactly like
 * the app: DATABASE_URL unset → SQLite in a fresh temp DATA_DIR; DATABASE_URL=postgres://… → a new
 * database `argus_test_<random>` on that server, dropped again by cleanup().
 *
 * process.env is only read (to pick the provider), never written: every config is built from an
 * explicit env object.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { loadConfig, type Config } from "../../server/config.ts";
import { pgPoolConfig } from "../../server/db/adapters.ts";
import { createDb, type Db } from "../../server/db/client.ts";
import { migrate } from "../../server/db/migrate.ts";

export interface TestConfig {
  config: Config;
  /** The env object the config was built from (to build variants, e.g. for a restart). */
  env: Record<string, string>;
  /** Drops the PostgreSQL database (if any) and removes the temp DATA_DIR. Idempotent. */
  cleanup(): Promise<void>;
}

/** The provider this run targets (the same rule as loadConfig). */
export function testProvider(): Config["db"]["provider"] {
  return /^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? "") ? "postgres" : "sqlite";
}

/** Every test server's preset setup token (SETUP_TOKEN), so helpers can create the first owner. */
export const TEST_SETUP_TOKEN = "test-setup-token-0123456789";

function baseEnv(dataDir: string, extra: Record<string, string>): Record<string, string> {
  return {
    DATA_DIR: dataDir,
    SETUP_TOKEN: TEST_SETUP_TOKEN,
    PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: "silent",
    NODE_ENV: "test",
    // The scripted model and test HTTP servers listen on loopback (the SSRF guard refuses it otherwise).
    PIPELINES_ALLOWED_HOSTS: "127.0.0.1,localhost",
    ...extra,
  };
}

/** Runs `sql` on the server named by `url`, connected to its maintenance database. */
async function adminQuery(url: string, sql: string): Promise<void> {
  const base = pgPoolConfig(url);
  // Connect to the URL's own database when it exists, else to "postgres" (CREATE DATABASE works from any).
  for (const database of [base.database, "postgres"]) {
    const client = new pg.Client({ ...base, database });
    try {
      await client.connect();
    } catch (err) {
      await client.end().catch(() => undefined);
      if ((err as { code?: string }).code === "3D000" && database !== "postgres") continue; // no such database
      throw err;
    }
    try {
      await client.query(sql);
      return;
    } finally {
      await client.end();
    }
  }
}

/**
 * A fresh, empty (not yet migrated) database and the config pointing at it.
 * `extraEnv` adds variables (e.g. AUTH_SECRET); it cannot change the provider.
 */
export async function createTestConfig(extraEnv: Record<string, string> = {}): Promise<TestConfig> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "argus-test-"));
  const removeDir = () => rmSync(dataDir, { recursive: true, force: true });

  // cleanup() runs once, whatever calls it twice (afterAll plus an error path).
  const once = (fn: () => Promise<void> | void) => {
    let done = false;
    return async () => {
      if (done) return;
      done = true;
      await fn();
    };
  };

  if (testProvider() === "sqlite") {
    const env = baseEnv(dataDir, extraEnv);
    return { config: loadConfig(env), env, cleanup: once(removeDir) };
  }

  const serverUrl = process.env.DATABASE_URL!;
  const name = `argus_test_${randomBytes(6).toString("hex")}`;
  await adminQuery(serverUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const env = baseEnv(dataDir, { ...extraEnv, DATABASE_URL: url.toString() });
  return {
    config: loadConfig(env),
    env,
    cleanup: once(async () => {
      try {
        await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        removeDir();
      }
    }),
  };
}

/** A migrated database of its own for a test file, with the app's client; close() disconnects and drops it. */
export async function openMigratedDb(): Promise<{ t: TestConfig; db: Db; close(): Promise<void> }> {
  const t = await createTestConfig();
  await migrate(t.config.db);
  const db = await createDb(t.config.db);
  return {
    t,
    db,
    async close() {
      await db.$disconnect();
      await t.cleanup();
    },
  };
}
