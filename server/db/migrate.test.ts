import { afterEach, describe, expect, it } from "vitest";
import { createTestConfig, type TestConfig } from "../../test/helpers/db.ts";
import { createDb, type Db } from "./client.ts";
import { migrate, MigrationError, migrationsFor } from "./migrate.ts";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function freshDb(): Promise<TestConfig> {
  const t = await createTestConfig();
  cleanups.push(t.cleanup);
  return t;
}

async function client(t: TestConfig): Promise<Db> {
  const db = await createDb(t.config.db);
  cleanups.push(() => db.$disconnect());
  return db;
}

interface MigrationRow {
  migration_name: string;
  checksum: string;
  finished_at: unknown;
}

const rows = (db: Db) =>
  db.$queryRawUnsafe<MigrationRow[]>(
    `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" ORDER BY migration_name`,
  );

describe("migrate", () => {
  it("keeps the SQLite and PostgreSQL migration folders in step", () => {
    expect(migrationsFor("sqlite").map((m) => m.name)).toEqual(migrationsFor("postgres").map((m) => m.name));
    expect(migrationsFor("sqlite").map((m) => m.name)).toContain("20261129000000_init");
  });

  it("applies the init migration to a fresh database, then nothing on a second run", async () => {
    const t = await freshDb();
    const all = migrationsFor(t.config.db.provider);

    const first = await migrate(t.config.db);
    expect(first).toEqual(all.map((m) => m.name));
    expect(first[0]).toBe("20261129000000_init");

    const db = await client(t);
    const recorded = await rows(db);
    expect(recorded.map((r) => r.migration_name)).toEqual(all.map((m) => m.name));
    expect(recorded.map((r) => r.checksum)).toEqual(all.map((m) => m.checksum));
    expect(recorded.every((r) => r.finished_at != null)).toBe(true);
    // The schema is really there: every model can be queried.
    expect(await db.user.count()).toBe(0);
    expect(await db.workspace.count()).toBe(0);
    expect(await db.prompt.count()).toBe(0);

    expect(await migrate(t.config.db)).toEqual([]);
    expect(await rows(db)).toHaveLength(all.length);
  });

  it("refuses an applied migration whose file was edited (checksum differs), naming it", async () => {
    const t = await freshDb();
    await migrate(t.config.db);
    const db = await client(t);
    await db.$executeRawUnsafe(
      `UPDATE "_prisma_migrations" SET checksum = '${"0".repeat(64)}' WHERE migration_name = '20261129000000_init'`,
    );

    const err = await migrate(t.config.db).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(MigrationError);
    expect((err as Error).message).toContain("20261129000000_init");
    expect((err as Error).message).toMatch(/changed after it was applied/);
    expect((err as Error).message).toMatch(/add a new migration/);
  });

  it("refuses to continue past a migration that started but did not finish", async () => {
    const t = await freshDb();
    await migrate(t.config.db);
    const db = await client(t);
    await db.$executeRawUnsafe(`UPDATE "_prisma_migrations" SET finished_at = NULL`);
    await expect(migrate(t.config.db)).rejects.toThrow(/20261129000000_init started earlier but did not finish/);
  });

  it("is safe to run concurrently: two starts apply the migration once", async () => {
    const t = await freshDb();
    const results = await Promise.all([migrate(t.config.db), migrate(t.config.db), migrate(t.config.db)]);
    const known = migrationsFor(t.config.db.provider).map((m) => m.name);
    for (const r of results) expect(r.every((name) => known.includes(name))).toBe(true);
    const db = await client(t);
    expect(await rows(db)).toHaveLength(migrationsFor(t.config.db.provider).length);
    expect(await db.user.count()).toBe(0);
  });

  // (Was a bug on SQLite: every concurrent run reported the migration as applied by itself.)
  it("reports each migration as applied by exactly one of the concurrent runs", async () => {
    const t = await freshDb();
    const results = await Promise.all([migrate(t.config.db), migrate(t.config.db), migrate(t.config.db)]);
    expect(results.flat().sort()).toEqual(migrationsFor(t.config.db.provider).map((m) => m.name));
  });
});
