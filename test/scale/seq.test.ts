/**
 * Room seqs across processes, for real: separate Node processes, each with its own event bus and
 * database connections, publish into one room of one PostgreSQL database at the same moment. Every
 * seq is taken once, none is skipped, and each process's events keep its publish order.
 * Skipped unless DATABASE_URL names a PostgreSQL server (npm run test:scale in CI).
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestConfig, testProvider, type TestConfig } from "../helpers/db.ts";
import { sayWhySkipped } from "../helpers/redis.ts";
import { migrate } from "../../server/db/migrate.ts";
import { createDb } from "../../server/db/client.ts";
import { reviewRoom } from "../../server/shared/rooms.ts";

const skip =
  testProvider() === "postgres" ? undefined : "DATABASE_URL is not a postgres:// URL: this test needs PostgreSQL.";
sayWhySkipped("test/scale/seq.test.ts", skip);

let t: TestConfig;
beforeAll(async () => {
  if (skip) return;
  t = await createTestConfig();
  await migrate(t.config.db);
});
afterAll(() => t?.cleanup());

function publisher(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", "test/scale/support/publish.ts"], {
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  // Lines are queued as they come (a line that arrives before anyone asks is kept).
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => String((await lines.next()).value);
  return { child, next };
}

describe.skipIf(!!skip)("seq allocation across processes (PostgreSQL)", () => {
  it("three processes × 100 events into one room: seqs 1…300, each once, each process's order kept", async () => {
    const room = reviewRoom(crypto.randomUUID());
    const N = 100;
    const procs = ["a", "b", "c"].map((label) =>
      publisher({ ...t.env, ROOM: room, N: String(N), LABEL: label, LOG_LEVEL: "silent" }),
    );
    for (const p of procs) expect(await p.next()).toBe("waiting");
    const results = procs.map((p) => p.next());
    for (const p of procs) p.child.stdin.write("go\n");
    const seqs = (await Promise.all(results)).map((line) => JSON.parse(line) as number[]);

    // Each process got increasing seqs for its events in publish order.
    for (const s of seqs) expect(s).toEqual([...s].sort((x, y) => x - y));
    // Together: every seq from 1 to 300 exactly once.
    expect(seqs.flat().sort((x, y) => x - y)).toEqual(Array.from({ length: 3 * N }, (_, i) => i + 1));
    // The stored log agrees, and the processes really interleaved (no process ran alone).
    const db = await createDb(t.config.db);
    try {
      const rows = await db.roomEvent.findMany({ where: { room }, orderBy: { seq: "asc" } });
      expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 3 * N }, (_, i) => i + 1));
      const owners = rows.map((r) => (JSON.parse(r.payload) as { fingerprint: string }).fingerprint[0]);
      const switches = owners.filter((o, i) => i > 0 && o !== owners[i - 1]).length;
      expect(switches).toBeGreaterThan(2);
    } finally {
      await db.$disconnect();
    }
  });
});
