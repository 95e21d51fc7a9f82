/**
 * Prisma driver adapters for the two providers. Shared by the runtime client (server/db/client.ts)
 * and the Prisma CLI (prisma.config.ts), so migrations and queries connect the same way.
 */
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { sqlitePath, type Config } from "../config.ts";

export function sqliteAdapter(url: string) {
  const file = sqlitePath(url);
  mkdirSync(path.dirname(file), { recursive: true });
  // timeout = busy timeout in ms: concurrent writers wait instead of failing with SQLITE_BUSY.
  return new PrismaBetterSQLite3({ url: `file:${file}`, timeout: 5000 });
}

/** Discrete connection fields (the adapter mishandles some connection strings) from a postgres URL. */
export function pgPoolConfig(url: string, idleTimeoutMillis = 10_000): pg.PoolConfig {
  const u = new URL(url);
  return {
    host: decodeURIComponent(u.hostname) || "127.0.0.1",
    port: u.port ? Number(u.port) : 5432,
    user: decodeURIComponent(u.username) || undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    database: decodeURIComponent(u.pathname.replace(/^\//, "")) || undefined,
    idleTimeoutMillis,
    max: 10,
    // Idle connections must not keep a CLI process alive.
    allowExitOnIdle: true,
  };
}

// PostgreSQL types the adapter cannot deserialize (prisma/orm#27403): `name` (19) and `char` (18)
// become text (25); their arrays (1003, 1002) become text[] (1009). Needed by `migrate deploy`.
const RELABEL: Record<number, number> = { 19: 25, 18: 25, 1003: 1009, 1002: 1009 };

function relabelFields(result: unknown): unknown {
  const fields = (result as { fields?: { dataTypeID: number }[] } | undefined)?.fields;
  for (const field of fields ?? []) field.dataTypeID = RELABEL[field.dataTypeID] ?? field.dataTypeID;
  return result;
}

/** A pool whose clients report the relabelled field types (covers pool.query and transactions). */
export function relabelingPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config);
  pool.on("connect", (client) => {
    const original = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const last = args[args.length - 1];
      if (typeof last === "function") {
        args[args.length - 1] = (err: unknown, res: unknown) => last(err, err ? res : relabelFields(res));
        return original(...args);
      }
      const out = original(...args);
      return out instanceof Promise ? out.then(relabelFields) : out;
    };
  });
  return pool;
}

export function pgAdapter(url: string, idleTimeoutMillis?: number) {
  return new PrismaPg(relabelingPool(pgPoolConfig(url, idleTimeoutMillis)), { disposeExternalPool: true });
}

export function adapterFor(db: Config["db"], opts: { idleTimeoutMillis?: number } = {}) {
  return db.provider === "postgres" ? pgAdapter(db.url, opts.idleTimeoutMillis) : sqliteAdapter(db.url);
}
