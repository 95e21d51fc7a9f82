/**
 * Applies the committed migrations of the configured provider (prisma/<provider>/migrations) in
 * order, each in its own transaction, recording them in Prisma's own `_prisma_migrations` table so
 * `prisma migrate status` agrees. Why not spawn `prisma migrate deploy`: offline with a driver
 * adapter it needs a type-relabelling workaround on PostgreSQL and then idles ~10 s before exiting,
 * which every start and every test database would pay.
 */
import { createHash, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import pg from "pg";
import { sqlitePath, type Config } from "../config.ts";
import { pgPoolConfig } from "./adapters.ts";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export function migrationsFor(provider: Config["db"]["provider"]): Migration[] {
  const dir = path.join(repoRoot, "prisma", provider, "migrations");
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

/** What a driver must do for the runner; one small implementation per provider below. */
interface MigrationDriver {
  ensureTable(): Promise<void>;
  applied(): Promise<Map<string, { checksum: string; finished: boolean }>>;
  /** Applies the migration; false when another process applied it first. */
  apply(m: Migration): Promise<boolean>;
  close(): Promise<void>;
}

export class MigrationError extends Error {
  override name = "MigrationError";
}

/** Applies pending migrations; returns the names it applied. Safe to run concurrently. */
export async function migrate(db: Config["db"]): Promise<string[]> {
  const driver = db.provider === "postgres" ? await postgresDriver(db.url) : sqliteDriver(db.url);
  try {
    await driver.ensureTable();
    const done = await driver.applied();
    const appliedNow: string[] = [];
    for (const m of migrationsFor(db.provider)) {
      const row = done.get(m.name);
      if (row && !row.finished) {
        throw new MigrationError(
          `Migration ${m.name} started earlier but did not finish. Inspect the database, then delete its row from _prisma_migrations to retry.`,
        );
      }
      if (row) {
        if (row.checksum !== m.checksum) {
          throw new MigrationError(
            `Migration ${m.name} was changed after it was applied (checksum differs). Restore the committed file; add a new migration instead of editing an applied one.`,
          );
        }
        continue;
      }
      if (await driver.apply(m)) appliedNow.push(m.name);
    }
    return appliedNow;
  } finally {
    await driver.close();
  }
}

const TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

function sqliteDriver(url: string): MigrationDriver {
  const file = sqlitePath(url);
  mkdirSync(path.dirname(file), { recursive: true });
  const conn = new Database(file);
  conn.pragma("journal_mode = WAL");
  conn.pragma("busy_timeout = 5000");
  return {
    async ensureTable() {
      conn.exec(TABLE.replace(/TIMESTAMPTZ/g, "DATETIME").replace("DEFAULT now()", "DEFAULT current_timestamp"));
    },
    async applied() {
      const rows = conn
        .prepare(`SELECT migration_name, checksum, finished_at FROM _prisma_migrations WHERE rolled_back_at IS NULL`)
        .all() as { migration_name: string; checksum: string; finished_at: unknown }[];
      return new Map(rows.map((r) => [r.migration_name, { checksum: r.checksum, finished: r.finished_at != null }]));
    },
    async apply(m) {
      // IMMEDIATE takes the write lock first, so two processes starting together apply it once.
      return conn
        .transaction(() => {
          const exists = conn.prepare(`SELECT 1 FROM _prisma_migrations WHERE migration_name = ?`).get(m.name);
          if (exists) return false;
          conn.exec(m.sql);
          const now = Date.now();
          conn
            .prepare(
              `INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES (?, ?, ?, ?, ?, 1)`,
            )
            .run(randomUUID(), m.checksum, now, m.name, now);
          return true;
        })
        .immediate();
    },
    async close() {
      conn.close();
    },
  };
}

async function postgresDriver(url: string): Promise<MigrationDriver> {
  const client = new pg.Client(pgPoolConfig(url));
  await client.connect();
  // One migrator at a time across every node starting against this database.
  await client.query("SELECT pg_advisory_lock(7270736972)");
  return {
    async ensureTable() {
      await client.query(TABLE);
    },
    async applied() {
      const { rows } = await client.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
        `SELECT migration_name, checksum, finished_at FROM _prisma_migrations WHERE rolled_back_at IS NULL`,
      );
      return new Map(rows.map((r) => [r.migration_name, { checksum: r.checksum, finished: r.finished_at != null }]));
    },
    async apply(m) {
      await client.query("BEGIN");
      try {
        await client.query(m.sql);
        await client.query(
          `INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES ($1, $2, now(), $3, now(), 1)`,
          [randomUUID(), m.checksum, m.name],
        );
        await client.query("COMMIT");
        return true;
      } catch (err) {
        await client.query("ROLLBACK");
        throw new MigrationError(`Migration ${m.name} failed and was rolled back: ${(err as Error).message}`);
      }
    },
    async close() {
      await client.end();
    },
  };
}
