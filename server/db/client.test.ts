/** The Prisma client as the app builds it (createDb), on the provider under test. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openMigratedDb, testProvider, type TestConfig } from "../../test/helpers/db.ts";
import { isNotFound, isUniqueViolation, type Db } from "./client.ts";

let t: TestConfig;
let db: Db;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ t, db, close } = await openMigratedDb());
});
afterAll(async () => {
  await close?.();
});

const names = async (prefix: string) =>
  (await db.workspace.findMany({ where: { name: { startsWith: prefix } }, orderBy: { name: "asc" } })).map(
    (w) => w.name,
  );

describe("createDb", () => {
  it("connects to the configured provider and answers queries", async () => {
    expect(t.config.db.provider).toBe(testProvider());
    await expect(db.$queryRawUnsafe("SELECT 1")).resolves.toBeDefined();
  });

  it.runIf(testProvider() === "sqlite")("SQLite commits in WAL mode without an fsync per commit", async () => {
    // A commit must not block the event loop on the disk (see createDb); WAL keeps that safe.
    const [journal] = await db.$queryRawUnsafe<{ journal_mode: string }[]>("PRAGMA journal_mode");
    const [sync] = await db.$queryRawUnsafe<{ synchronous: bigint | number }[]>("PRAGMA synchronous");
    expect(journal?.journal_mode).toBe("wal");
    expect(Number(sync?.synchronous)).toBe(1); // NORMAL
  });

  it("isUniqueViolation / isNotFound recognise the provider's errors", async () => {
    const ws = await db.workspace.create({ data: { name: "errors" } });
    const err = await db.workspace.create({ data: { id: ws.id, name: "dup" } }).catch((e: unknown) => e);
    expect(isUniqueViolation(err)).toBe(true);
    expect(isNotFound(err)).toBe(false);
    const missing = await db.workspace
      .update({ where: { id: "no-such-id" }, data: { name: "x" } })
      .catch((e: unknown) => e);
    expect(isNotFound(missing)).toBe(true);
    expect(isUniqueViolation(missing)).toBe(false);
  });

  it("the database allows only one default prompt per workspace", async () => {
    const ws = await db.workspace.create({ data: { name: "defaults" } });
    await db.prompt.create({
      data: { uid: crypto.randomUUID(), workspaceId: ws.id, name: "a", content: "a", isDefault: true },
    });
    const err = await db.prompt
      .create({ data: { uid: crypto.randomUUID(), workspaceId: ws.id, name: "b", content: "b", isDefault: true } })
      .catch((e: unknown) => e);
    expect(isUniqueViolation(err)).toBe(true);
    // Non-defaults and user prompts (builtinKey NULL) are unrestricted.
    await db.prompt.create({ data: { uid: crypto.randomUUID(), workspaceId: ws.id, name: "c", content: "c" } });
    await db.prompt.create({ data: { uid: crypto.randomUUID(), workspaceId: ws.id, name: "d", content: "d" } });
    expect(await db.prompt.count({ where: { workspaceId: ws.id } })).toBe(3);
  });

  it("a transaction that fails is rolled back as a whole", async () => {
    await expect(
      db.$transaction(async (tx) => {
        await tx.workspace.create({ data: { name: "rollback-inside" } });
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await names("rollback-inside")).toEqual([]);
  });

  // The better-sqlite3 adapter runs every query on one connection; without the gate in
  // server/db/sqlite-gate.ts, a query from another request would run inside an open transaction
  // and vanish when it rolls back (any 409 thrown inside db.$transaction).
  it("a write made by another request while a transaction is open survives that transaction's rollback", async () => {
    let opened!: () => void;
    const isOpen = new Promise<void>((resolve) => (opened = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const failing = db.$transaction(async (tx) => {
      await tx.workspace.create({ data: { name: "concurrent-inside" } });
      opened();
      await held;
      throw new Error("conflict");
    });
    await isOpen;
    // Another request, from its own async context (.then starts the lazy Prisma query now).
    const outside = db.workspace.create({ data: { name: "concurrent-outside" } }).then((w) => w);
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await expect(failing).rejects.toThrow("conflict");
    await outside;
    expect(await names("concurrent-")).toEqual(["concurrent-outside"]);
  });
});
