/**
 * The one module that knows where Prisma's generated clients live. Both providers share the same
 * models (prisma/models.prisma), so the SQLite client's type describes either.
 */
import { createRequire } from "node:module";
import type { Config } from "../config.ts";
import { adapterFor } from "./adapters.ts";
import { gateSqliteClient } from "./sqlite-gate.ts";
import type { PrismaClient as SqliteClient, Prisma as SqlitePrisma } from "../../prisma/generated/sqlite/index.js";

export type Db = SqliteClient;
/** A transaction client (what `db.$transaction(async (tx) => …)` hands out). */
export type Tx = Omit<Db, "$connect" | "$disconnect" | "$on" | "$transaction" | "$extends">;
export type { SqlitePrisma as Prisma };
export type * from "../../prisma/generated/sqlite/index.js";

const require = createRequire(import.meta.url);

export async function createDb(db: Config["db"]): Promise<Db> {
  const { PrismaClient } = require(`../../prisma/generated/${db.provider}/index.js`) as {
    PrismaClient: new (opts: object) => Db;
  };
  const client = new PrismaClient({ adapter: adapterFor(db) });
  if (db.provider === "postgres") return client;
  // WAL lets other processes read while this one writes; the setting persists in the file.
  await client.$queryRawUnsafe("PRAGMA journal_mode = WAL");
  // better-sqlite3 runs on the event loop: with synchronous = FULL every commit waits for an fsync
  // there (7 ms typical, 40 ms p99 on a busy disk), and nothing else runs meanwhile — every socket
  // write of every room waits too (bench/rooms). NORMAL, SQLite's advice for WAL, syncs at
  // checkpoints: never corrupt, and durable across a crash of the process; an OS crash or power
  // loss can take back the last commits (docs/database.md). Per connection, so set on each open.
  await client.$queryRawUnsafe("PRAGMA synchronous = NORMAL");
  return gateSqliteClient(client);
}

/** Prisma's error code for a unique-constraint violation, whichever provider raised it. */
export function isUniqueViolation(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: string }).code === "P2002";
}

/** The columns of the unique constraint a P2002 violated (e.g. ["uid"]), as both adapters report them. */
export function uniqueViolationFields(err: unknown): string[] {
  if (!isUniqueViolation(err)) return [];
  const meta = (
    err as { meta?: { target?: unknown; driverAdapterError?: { cause?: { constraint?: { fields?: unknown } } } } }
  ).meta;
  const fields = meta?.driverAdapterError?.cause?.constraint?.fields ?? meta?.target;
  return Array.isArray(fields) ? fields.map((f) => String(f).replace(/"/g, "")) : [];
}

export function isNotFound(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: string }).code === "P2025";
}
